import type { counterNames } from './entities/counter.ts';
import { db } from './service.ts';

/**
 * Allocates `count` consecutive ids with one atomic ADD. An id whose write later fails is
 * simply skipped: ids are never reused.
 */
export async function allocateIds(name: (typeof counterNames)[number], count = 1): Promise<number[]> {
  if (count < 1) return [];
  const { data } = await db().entities.counter.update({ name }).add({ value: count }).go({ response: 'updated_new' });
  const last = data.value;
  if (typeof last !== 'number') throw new Error(`Counter ${name} returned no value`);
  return Array.from({ length: count }, (_, i) => last - count + 1 + i);
}
