/**
 * The usage bench's sustained figure (scripts/bench-usage.ts) counts every sender's events:
 * concurrent senders adding to one total with `events += (await post()).accepted` each read
 * the total before their await and wrote it back after, so 4 senders counted about one
 * batch in four and the bench printed ¼ the rate and 4× the CPU per event.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { SENDERS, type Sustained, sustainedUsage } from '../../scripts/bench-usage.ts';

type Usage = Parameters<typeof sustainedUsage>[0];

/** A stand-in for the local server: each POST answers after a few ms, accepting `accepts(n)` of n events. */
function fakeUsage(accepts: (sent: number) => number): Usage {
  let posts = 0;
  return {
    batch: () => Array.from({ length: 1_000 }, (_, i) => ({ eventId: `e-${i}` })),
    post: async (events: unknown[]) => {
      // Uneven delays, so the senders' answers interleave as they do over HTTP.
      await sleep(1 + (posts++ % 3));
      return { accepted: accepts(events.length), duplicates: 0 };
    },
  } as unknown as Usage;
}

describe('sustained usage bench', () => {
  test('counts the events of every concurrent sender', async () => {
    const run: Sustained = await sustainedUsage(
      fakeUsage((sent) => sent),
      undefined,
      3,
    );
    expect(SENDERS).toBeGreaterThan(1);
    expect(run.events).toBe(SENDERS * 3 * 1_000);
    expect(run.eventsPerSecond).toBeCloseTo(run.events / run.seconds);
  });

  test('refuses a run where the server accepted fewer events than were sent', async () => {
    await expect(
      sustainedUsage(
        fakeUsage((sent) => sent - 1),
        undefined,
        2,
      ),
    ).rejects.toThrow(`${SENDERS * 2 * 999} events accepted of ${SENDERS * 2 * 1_000} new ones sent`);
  });
});
