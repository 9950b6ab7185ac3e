/**
 * The public share response (GET /share/{shareId}) as plain types: what the widget reads and
 * the domain's zod schema must produce. shared/domain/share/schemas.ts proves at compile time
 * that its schema and these types stay the same shape.
 */
import type { AggregationMethod, Alignment, BadgePosition, FeatureType } from './enums.ts';

export interface ThemeSettings {
  fontFamily: string;
  primaryColor: string;
  hoverColor: string;
  buttonTextColor: string;
  borderRadius: string;
  pricingBackgroundColor: string;
  pricingBorderColor: string;
  customCSS: string;
  showProjectName: boolean;
  showPricingHeader: boolean;
  headerAlign: Alignment;
  descriptionAlign: Alignment;
  toggleAlign: Alignment;
  popularBadgePosition: BadgePosition;
  /** null: derived from pricingBackgroundColor so text reaches 4.5:1. */
  textColor: string | null;
  mutedTextColor: string | null;
}

/** How a countable feature is priced per unit and measured. */
export interface CountableData {
  usageCount: number;
  condition: string;
  countPrice: number;
  eventAggregationMethod: AggregationMethod;
}

/** A feature as a plan lists it: included or not, with the plan's limit and condition. */
export interface SharePlanFeature {
  name: string;
  included: boolean;
  limit: number | null;
  featureType: FeatureType;
  condition: string | null;
}

export interface SharePlan {
  id: number;
  name: string;
  description: string;
  basePrice: number;
  isFree: boolean;
  isPopular: boolean;
  freemiumDay: number;
  isPerUserPricing: boolean;
  perUserMultiplier: number;
  features: SharePlanFeature[];
}

/** A feature of the project, as a custom plan offers it. */
export interface ShareFeature {
  id: number;
  name: string;
  description: string;
  featureType: FeatureType;
  basePrice: number;
  isCountable: boolean;
  countableData: CountableData | null;
}

/**
 * The Cuprice-compatible part of the share data: the shape Cuprice's own clients (its React
 * SDK) read, so a pricing page built for Cuprice renders from this service unchanged.
 */
export interface CupriceFeature {
  id: number;
  name: string;
  /** Absent, with countableData, when the answer would be too large with them. */
  description?: string;
  featureType: FeatureType;
  basePrice: number;
  countableData?: CountableData | null;
}

export interface CupricePlanFeature {
  /** The assignment's own id. */
  id: number;
  multiplier: number;
  feature: CupriceFeature;
}

/** A visible plan as Cuprice's clients read it; `order` is its position among them, in id order. */
export interface CupricePlan {
  id: number;
  name: string;
  description: string;
  order: number;
  isVisible: boolean;
  isPopular: boolean;
  isFree: boolean;
  basePrice: number;
  freemiumDay: number;
  isPerUserPricing: boolean;
  perUserMultiplier: number;
  planFeatures: CupricePlanFeature[];
}

/** The public face of a project: nothing of the owner, no keys, no hidden plans, no URLs. */
export interface ShareView {
  id: number;
  name: string;
  description: string;
  pricingPageDescription: string;
  currency: string;
  annualDiscount: number;
  annualDiscountEnabled: boolean;
  paymentsConnected: boolean;
  /** Where a free plan's button sends a visitor; null: a free plan has no button. */
  signupUrl: string | null;
  plans: SharePlan[];
  features: ShareFeature[];
  themeSettings: ThemeSettings;
  /** The visible plans again, in the shape Cuprice's clients read; absent when the answer would be too large with them. */
  pricingPlans?: CupricePlan[];
  /** While an experiment runs and the request named a visitor: the experiment and the visitor's variant. */
  experiment?: { id: number; variant: string };
}
