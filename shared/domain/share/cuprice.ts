import { limits } from '#contract/limits.ts';
import type { FeatureItem, PlanItem } from '#db/types.ts';
import type { Assignment } from '../plans/view.ts';
import type { ShareView } from './schemas.ts';

type CupricePlan = NonNullable<ShareView['pricingPlans']>[number];
type CupricePlanFeature = CupricePlan['planFeatures'][number];
type CupriceFeature = CupricePlanFeature['feature'];
type CountableData = NonNullable<CupriceFeature['countableData']>;

/** Which `pricingPlans` a share answer carries (docs/decisions.md, "The Cuprice-compatible part"). */
export type CupriceForm = 'full' | 'light' | 'none';

/**
 * The size of a value as Lambda serialises it in its result: the JSON body, as a JSON string
 * (every `"` and `\` one byte more), in UTF-8, without the string's own quotes. Every coding
 * of an answer is smaller than this on the wire.
 */
export const lambdaBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(JSON.stringify(value))) - 2;

/**
 * A planFeatures entry's bytes without its feature's details: its keys and punctuation, then
 * its two numbers, which JSON writes as `String` does.
 */
const ENTRY_KEYS_BYTES = lambdaBytes({ id: 0, multiplier: 0, feature: {} }) - '00{}'.length;
const entryBytes = (id: number, multiplier: number) => ENTRY_KEYS_BYTES + String(id).length + String(multiplier).length;

/**
 * The share answer with its Cuprice-compatible plans: what Cuprice's React SDK reads
 * (`pricingPlans`, each with `order`, `isVisible` and `planFeatures` carrying the feature's
 * details), so a pricing page written for Cuprice renders from this service. `plans` are the
 * visible ones in id order, so `order` is the index.
 *
 * Every plan repeats the details of each feature it assigns, so at the limits the full form is
 * several times the rest of the answer. `plans` and `features` are the contract and this part
 * must never make the answer fail: it carries the full form when the whole answer fits
 * `answerBytesMax` as Lambda serialises it, else the light form (each feature's `id`, `name`,
 * `featureType` and `basePrice`: what a plan card shows) when that fits, else no
 * `pricingPlans`. The choice depends on the data alone, never on the request's
 * Accept-Encoding, so every coding carries the same content under the same tag. It is decided
 * from sizes counted once per feature, so the form that would not fit is never built.
 */
export function withCupricePlans(
  base: Omit<ShareView, 'pricingPlans'>,
  plans: PlanItem[],
  features: FeatureItem[],
  countable: Map<number, CountableData | null>,
  assignmentsOf: (planId: number) => Assignment[],
  answerBytesMax: number = limits.answerBytesMax,
): ShareView {
  const shells = plans.map((plan, order) => ({
    id: plan.planId,
    name: plan.name,
    description: plan.description,
    order,
    isVisible: true,
    isPopular: plan.isPopular,
    isFree: plan.isFree,
    basePrice: plan.basePrice,
    freemiumDay: plan.freemiumDay,
    isPerUserPricing: plan.isPerUserPricing,
    perUserMultiplier: plan.perUserMultiplier,
    planFeatures: [] as CupricePlanFeature[],
  }));
  const assigned = plans.map((plan) => assignmentsOf(plan.planId));
  const withoutEntries = lambdaBytes({ ...base, pricingPlans: shells });
  const form = chooseForm(withoutEntries, assigned, features, countable, answerBytesMax);
  if (form === 'none') return base;

  const details = new Map<number, CupriceFeature>();
  for (const feature of features) details.set(feature.featureId, detailsOf(feature, countable, form));
  shells.forEach((shell, p) => {
    shell.planFeatures = (assigned[p] ?? []).map(({ assignment, feature }) => ({
      id: assignment.planFeatureId,
      multiplier: assignment.multiplier,
      feature: details.get(feature.featureId) as CupriceFeature,
    }));
  });
  return { ...base, pricingPlans: shells };
}

function detailsOf(
  feature: FeatureItem,
  countable: Map<number, CountableData | null>,
  form: Exclude<CupriceForm, 'none'>,
): CupriceFeature {
  const { featureId: id, name, featureType, basePrice } = feature;
  if (form === 'light') return { id, name, featureType, basePrice };
  const countableData = countable.get(id) ?? null;
  return { id, name, description: feature.description, featureType, basePrice, countableData };
}

/**
 * The fullest form whose answer fits: `withoutEntries` is the answer with every plan's
 * `planFeatures` empty; each entry adds its own bytes, its feature's details and a comma
 * after the first.
 */
function chooseForm(
  withoutEntries: number,
  assigned: Assignment[][],
  features: FeatureItem[],
  countable: Map<number, CountableData | null>,
  answerBytesMax: number,
): CupriceForm {
  let entries = withoutEntries;
  const uses = new Map<number, number>();
  for (const list of assigned) {
    entries += Math.max(0, list.length - 1);
    for (const { assignment, feature } of list) {
      entries += entryBytes(assignment.planFeatureId, assignment.multiplier);
      uses.set(feature.featureId, (uses.get(feature.featureId) ?? 0) + 1);
    }
  }
  const sizeOf = (form: Exclude<CupriceForm, 'none'>) => {
    let bytes = entries;
    for (const feature of features) {
      const count = uses.get(feature.featureId) ?? 0;
      if (count > 0) bytes += count * lambdaBytes(detailsOf(feature, countable, form));
    }
    return bytes;
  };
  if (sizeOf('full') <= answerBytesMax) return 'full';
  if (sizeOf('light') <= answerBytesMax) return 'light';
  return 'none';
}
