import { readSharePartition } from '#db/projects.ts';
import type { ProjectPartition } from '#db/types.ts';
import { NotFoundError } from '../errors.ts';
import { controlOf, plansInVariant, runningExperiment, variantFor } from '../experiments/assignment.ts';
import { countableData, featureLimit } from '../features/view.ts';
import { paymentsConnected } from '../payments/payment-key.ts';
import { assignmentsByPlan } from '../plans/view.ts';
import { readTheme } from '../projects/theme.ts';
import { withCupricePlans } from './cuprice.ts';
import type { ShareView } from './schemas.ts';

const shareIdPattern = /^[A-Za-z0-9_-]{16,64}$/;

/** Whether a string has the shape of a share id (it may still name no project). */
export const isShareIdShaped = (value: string) => shareIdPattern.test(value);

/**
 * A project by its share id, with everything in it, from one Query on the byShareId index.
 * Unknown and deleting projects are a 404, and so are inactive ones unless the caller
 * (a receipt for a past purchase) says otherwise.
 */
export async function loadSharedProject(shareId: string, { includeInactive = false } = {}): Promise<ProjectPartition> {
  const partition = isShareIdShaped(shareId) ? await readSharePartition(shareId) : undefined;
  if (!partition || (!partition.project.isActive && !includeInactive)) {
    throw new NotFoundError(`No ${includeInactive ? '' : 'active '}pricing page has this share id.`);
  }
  return partition;
}

/**
 * The public pricing data of an active project. While an experiment runs, a visitor sees the
 * plans of its variant and which one it is (`personal`: the answer is that visitor's alone).
 * Without a visitor id it is the control's plans, the same for everyone and so cacheable, with
 * `experimentId` set so that the answer can say (outside its body) that a visitor id would
 * change it. Without a running experiment the visitor id changes nothing.
 */
export async function getShareData(
  shareId: string,
  visitor?: string,
): Promise<{ view: ShareView; personal: boolean; experimentId?: number }> {
  const partition = await loadSharedProject(shareId);
  const experiment = runningExperiment(partition);
  if (!experiment) return { view: toShareView(partition), personal: false };
  const variant = visitor ? variantFor(experiment, visitor) : controlOf(experiment);
  const view = toShareView({ ...partition, plans: plansInVariant(partition.plans, variant) });
  if (!visitor) return { view, personal: false, experimentId: experiment.experimentId };
  return { view: { ...view, experiment: { id: experiment.experimentId, variant: variant.key } }, personal: true };
}

/**
 * The public pricing data of a project as read; `answerBytesMax` bounds its Cuprice-compatible
 * part (shared/domain/share/cuprice.ts).
 */
export function toShareView(partition: ProjectPartition, answerBytesMax?: number): ShareView {
  const { project } = partition;
  const features = [...partition.features].sort((a, b) => a.featureId - b.featureId);
  const joined = assignmentsByPlan(partition);
  const plans = partition.plans.filter((plan) => plan.isVisible).sort((a, b) => a.planId - b.planId);
  const countable = new Map(features.map((feature) => [feature.featureId, countableData(feature)]));

  const base = {
    id: project.projectId,
    name: project.name,
    description: project.description,
    pricingPageDescription: project.pricingPageDescription,
    currency: project.currency,
    annualDiscount: project.annualDiscount,
    annualDiscountEnabled: project.annualDiscountEnabled,
    paymentsConnected: paymentsConnected(project),
    signupUrl: project.signupUrl ?? null,
    plans: plans.map((plan) => {
      const multipliers = new Map(
        (joined.get(plan.planId) ?? []).map((a) => [a.feature.featureId, a.assignment.multiplier]),
      );
      return {
        id: plan.planId,
        name: plan.name,
        description: plan.description,
        basePrice: plan.basePrice,
        isFree: plan.isFree,
        isPopular: plan.isPopular,
        freemiumDay: plan.freemiumDay,
        isPerUserPricing: plan.isPerUserPricing,
        perUserMultiplier: plan.perUserMultiplier,
        features: features.map((feature) => {
          const multiplier = multipliers.get(feature.featureId);
          const included = multiplier !== undefined;
          return {
            name: feature.name,
            included,
            limit: included && feature.isCountable ? featureLimit(feature.usageCount, multiplier) : null,
            featureType: feature.featureType,
            condition: feature.isCountable ? feature.condition : null,
          };
        }),
      };
    }),
    features: features.map((feature) => ({
      id: feature.featureId,
      name: feature.name,
      description: feature.description,
      featureType: feature.featureType,
      basePrice: feature.basePrice,
      isCountable: feature.isCountable,
      countableData: countable.get(feature.featureId) ?? null,
    })),
    themeSettings: readTheme(project.theme),
  };
  return withCupricePlans(base, plans, features, countable, (planId) => joined.get(planId) ?? [], answerBytesMax);
}
