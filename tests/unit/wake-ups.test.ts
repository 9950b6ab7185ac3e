import { describe, expect, test } from 'vitest';
import { scheduleAt, sqsDeliveryQueueFor } from '#shared/webhooks-out/sqs-delivery-queue.ts';

describe('wake-ups of changes that take effect later', () => {
  test("a schedule's at() is UTC, whole seconds, never before the change", () => {
    expect(scheduleAt(Date.parse('2027-01-31T23:59:59.000Z'))).toBe('at(2027-01-31T23:59:59)');
    expect(scheduleAt(Date.parse('2027-01-31T23:59:59.001Z'))).toBe('at(2027-02-01T00:00:00)');
  });

  test('a wake-up later than SQS can delay needs the schedule settings, and says which', async () => {
    const queue = sqsDeliveryQueueFor({
      WEBHOOK_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/q',
      WEBHOOK_QUEUE_ARN: undefined,
      WEBHOOK_DEAD_LETTER_ARN: undefined,
      WEBHOOK_SCHEDULE_GROUP: undefined,
      WEBHOOK_SCHEDULER_ROLE_ARN: undefined,
      AWS_REGION: 'eu-west-1',
    });
    const ref = { projectId: 1, ownerId: 'o', slug: 's', customerId: 'c' };
    await expect(queue.wakeAt(ref, Date.now() + 3_600_000, 'evt_x')).rejects.toThrow(/WEBHOOK_SCHEDULE_GROUP/);
  });
});
