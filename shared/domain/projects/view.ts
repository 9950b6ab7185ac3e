import type { ProjectItem, ProjectPartition } from '#db/types.ts';
import { toFeatureView } from '../features/view.ts';
import { paymentsConnected, paymentWebhookConnected, webhookUrl } from '../payments/payment-key.ts';
import { planViews } from '../plans/view.ts';
import type { ProjectSummaryView, ProjectView } from './schemas.ts';
import { readTheme } from './theme.ts';

/** `publicBaseUrl`: where this service is reached from outside, for the project's webhookUrl. */
export function toProjectSummaryView(item: ProjectItem, publicBaseUrl: string): ProjectSummaryView {
  return {
    id: item.projectId,
    name: item.name,
    slug: item.slug,
    description: item.description,
    shareId: item.shareId,
    currency: item.currency,
    isActive: item.isActive,
    paymentsConnected: paymentsConnected(item),
    paymentsMode: item.paymentsMode ?? null,
    paymentWebhookConnected: paymentWebhookConnected(item),
    webhookUrl: webhookUrl(publicBaseUrl, item.shareId),
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    _count: { features: item.featureCount, pricingPlans: item.planCount },
  };
}

export function toProjectView(partition: ProjectPartition, publicBaseUrl: string): ProjectView {
  const { project } = partition;
  return {
    id: project.projectId,
    name: project.name,
    slug: project.slug,
    description: project.description,
    pricingPageDescription: project.pricingPageDescription,
    shareId: project.shareId,
    currency: project.currency,
    annualDiscount: project.annualDiscount,
    annualDiscountEnabled: project.annualDiscountEnabled,
    isActive: project.isActive,
    checkoutSuccessUrl: project.checkoutSuccessUrl ?? null,
    checkoutCancelUrl: project.checkoutCancelUrl ?? null,
    checkoutTestSuccessUrl: project.checkoutTestSuccessUrl ?? null,
    checkoutTestCancelUrl: project.checkoutTestCancelUrl ?? null,
    signupUrl: project.signupUrl ?? null,
    paymentsConnected: paymentsConnected(project),
    paymentsMode: project.paymentsMode ?? null,
    paymentWebhookConnected: paymentWebhookConnected(project),
    webhookUrl: webhookUrl(publicBaseUrl, project.shareId),
    themeSettings: readTheme(project.theme),
    features: [...partition.features].sort((a, b) => a.featureId - b.featureId).map(toFeatureView),
    pricingPlans: planViews(partition),
    createdAt: project.createdAt,
    updatedAt: project.updatedAt,
  };
}
