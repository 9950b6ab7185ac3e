/**
 * A pricing page written against Cuprice's share data, as a React app using Cuprice's SDK
 * reads it (`pricingPlans` by `order`, visible ones only, each plan's `planFeatures[].feature`,
 * the project's `features` with `countableData` for a custom plan). Our own code: it reads the
 * same fields the SDK reads and nothing of this service's own `plans`, so it renders only
 * if the Cuprice-compatible part of the answer is there and right.
 */
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';

interface CountableData {
  usageCount: number;
  condition: string;
  countPrice: number;
  eventAggregationMethod?: string | null;
}

interface Feature {
  id: number;
  name: string;
  description?: string;
  featureType: string;
  basePrice: number;
  countableData?: CountableData | null;
}

interface Plan {
  id: number;
  name: string;
  description?: string;
  order: number;
  isVisible: boolean;
  isPopular: boolean;
  isFree: boolean;
  basePrice: number;
  freemiumDay?: number | null;
  isPerUserPricing: boolean;
  perUserMultiplier: number;
  planFeatures: { id: number; multiplier: number; feature: Feature }[];
}

interface Project {
  id: number;
  name: string;
  description?: string;
  currency: string;
  annualDiscount: number;
  annualDiscountEnabled?: boolean;
  themeSettings?: { primaryColor?: string | null; showProjectName?: boolean | null } | null;
  features: Feature[];
  pricingPlans: Plan[];
}

const money = (amount: number, currency: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: 2 }).format(amount);

function PlanCard({ plan, project, annual }: { plan: Plan; project: Project; annual: boolean }) {
  // As Cuprice's cards do: a plan without a base price costs what its features do.
  const featureTotal = plan.planFeatures.reduce((sum, pf) => sum + (pf.feature.basePrice || 0), 0);
  const monthly = plan.basePrice > 0 ? plan.basePrice : featureTotal;
  const discounted = annual && project.annualDiscountEnabled ? monthly * (1 - project.annualDiscount) : monthly;
  const price = plan.isFree ? 0 : annual ? discounted * 12 : discounted;
  return (
    <article className="plan" data-plan-id={plan.id} data-popular={plan.isPopular ? 'yes' : 'no'}>
      <h2>{plan.name}</h2>
      {plan.isPopular ? <span className="badge">Most Popular</span> : null}
      <p className="price">
        {money(price, project.currency)} / {annual ? 'year' : 'month'}
      </p>
      {plan.freemiumDay ? <p className="trial">{plan.freemiumDay} days free</p> : null}
      <ul>
        {plan.planFeatures.map((pf) => (
          <li key={pf.id} title={pf.feature.description || undefined}>
            {pf.feature.name}
          </li>
        ))}
      </ul>
    </article>
  );
}

function CustomPlan({ project }: { project: Project }) {
  return (
    <ul className="custom">
      {project.features.map((feature) => (
        <li key={feature.id} data-feature-type={feature.featureType}>
          {feature.name}:{' '}
          {(feature.featureType === 'Usage Based' || feature.featureType === 'Limits') && feature.countableData
            ? `${money(feature.countableData.countPrice, project.currency)} per ${feature.countableData.condition} (${feature.countableData.usageCount})`
            : `${money(feature.basePrice, project.currency)} per user/month`}
        </li>
      ))}
    </ul>
  );
}

function PricingPage({ apiUrl, shareId }: { apiUrl: string; shareId: string }) {
  const [project, setProject] = useState<Project | null>(null);
  const [failed, setFailed] = useState(false);
  const [annual, setAnnual] = useState(false);
  useEffect(() => {
    fetch(`${apiUrl}/api/share/${shareId}`)
      .then(async (res) => (res.ok ? setProject(await res.json()) : setFailed(true)))
      .catch(() => setFailed(true));
  }, [apiUrl, shareId]);
  if (failed) return <h1>Project Not Found</h1>;
  if (!project) return <h1>Loading...</h1>;
  const visible = (project.pricingPlans || []).filter((p) => p.isVisible !== false).sort((a, b) => a.order - b.order);
  return (
    <main style={{ color: project.themeSettings?.primaryColor ?? undefined }}>
      {project.themeSettings?.showProjectName === false ? null : <h1>{project.name}</h1>}
      <p className="description">{project.description}</p>
      {project.annualDiscountEnabled ? (
        <button type="button" onClick={() => setAnnual(!annual)}>
          Annual (SAVE {Math.round(project.annualDiscount * 100)}%)
        </button>
      ) : null}
      {visible.length > 0 ? (
        <section className="plans">
          {visible.map((plan) => (
            <PlanCard key={plan.id} plan={plan} project={project} annual={annual} />
          ))}
        </section>
      ) : (
        <h2>No Plans Available</h2>
      )}
      <CustomPlan project={project} />
    </main>
  );
}

const { apiUrl, shareId } = (window as unknown as { cuprice: { apiUrl: string; shareId: string } }).cuprice;
createRoot(document.getElementById('root') as HTMLElement).render(<PricingPage apiUrl={apiUrl} shareId={shareId} />);
