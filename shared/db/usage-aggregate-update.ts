// The one update of an aggregate in a usage transaction, by its aggregation method.

import type { TransactItem } from './transactions.ts';
import { sameLimitCondition } from './usage-alert-limit.ts';
import type { AlertPlan } from './usage-alerts.ts';
import { aggregateExpiry } from './usage-expiry.ts';
import { usageKeys } from './usage-item-keys.ts';
import type { AggregationRules, Chunk, MeteredEvent } from './usage-packing.ts';

/** The update of a chunk's aggregate, or undefined when it would change nothing. */
export function aggregateUpdate(
  table: string,
  projectId: number,
  chunk: Chunk,
  live: MeteredEvent[],
  newProperties: number,
  rules: AggregationRules,
  alert?: (amount: number, mode: 'add' | 'max' | 'latest') => AlertPlan,
): { update: TransactItem; plan?: AlertPlan } | undefined {
  const { customerId, month, featureId, method } = chunk.group;
  // The limit its thresholds are decided on (usage-packing.ts, Known.decidedLimit).
  const { decidedLimit, replaces } = chunk.known;
  const limited = decidedLimit !== undefined;
  const identity = {
    ':projectId': projectId,
    ':customerId': customerId,
    ':month': month,
    ':featureId': featureId,
    ':method': method,
    ':entity': 'usage',
    ':version': '1',
    ':expiresAt': aggregateExpiry(month),
    ...(limited ? { ':alertLimit': decidedLimit } : {}),
    ...(limited && replaces !== undefined && replaces !== decidedLimit ? { ':alertLimitReplaced': replaces } : {}),
  };
  const set =
    'projectId = :projectId, customerId = :customerId, #month = :month, featureId = :featureId, ' +
    '#method = :method, #e = :entity, #v = :version, expiresAt = :expiresAt' +
    (limited ? ', #alertLimit = :alertLimit' : '');
  const sameLimit = sameLimitCondition(chunk.known, '#alertLimit', {
    notExists: (name) => `attribute_not_exists(${name})`,
    eq: (name, limit) => `${name} = ${limit === decidedLimit ? ':alertLimit' : ':alertLimitReplaced'}`,
  });
  const withLimit = (condition: string | undefined) =>
    sameLimit === undefined ? condition : condition ? `(${condition}) AND (${sameLimit})` : sameLimit;
  const names = {
    '#month': 'month',
    '#method': 'method',
    '#e': '__edb_e__',
    '#v': '__edb_v__',
    '#amount': 'amount',
    ...(limited ? { '#alertLimit': 'alertLimit' } : {}),
  };
  const updateOf = (expression: string, condition: string | undefined, values: object, moreNames = {}) => ({
    Update: {
      TableName: table,
      Key: usageKeys.aggregate(projectId, customerId, month, { featureId, method }),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      UpdateExpression: expression,
      ...(condition ? { ConditionExpression: condition } : {}),
      ExpressionAttributeNames: { ...names, ...moreNames },
      ExpressionAttributeValues: { ...identity, ...values },
    },
  });
  let add: number;
  if (method === 'count' || method === 'sum') add = rules.added(method, live);
  else if (method === 'unique_count') add = newProperties;
  else if (method === 'max') {
    const max = rules.max(live);
    if (chunk.known.stored?.amount !== undefined && chunk.known.stored.amount >= max) return undefined;
    const plan = alert?.(max, 'max');
    const raises = 'attribute_not_exists(#amount) OR #amount < :amount';
    const condition = withLimit(plan?.condition ? `(${raises}) AND (${plan.condition})` : raises);
    return {
      update: updateOf(`SET #amount = :amount, ${set}`, condition, { ...plan?.values, ':amount': max }),
      ...(plan ? { plan } : {}),
    };
  } else {
    const last = rules.latest(live);
    if (chunk.known.stored?.at !== undefined && chunk.known.stored.at > last.at) return undefined;
    const plan = alert?.(last.value ?? 0, 'latest');
    return {
      update: updateOf(
        `SET #amount = :amount, #at = :at, ${set}`,
        withLimit('attribute_not_exists(#at) OR #at <= :at'),
        { ':amount': last.value ?? 0, ':at': last.at },
        { '#at': 'at' },
      ),
      ...(plan?.items.length ? { plan } : {}),
    };
  }
  if (add === 0 && method === 'unique_count') return undefined;
  const plan = alert?.(add, 'add');
  return {
    update: updateOf(`SET ${set} ADD #amount :amount`, withLimit(plan?.condition || undefined), {
      ...plan?.values,
      ':amount': add,
    }),
    ...(plan ? { plan } : {}),
  };
}
