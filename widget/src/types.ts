import type { ShareFeature, SharePlan, ShareView, ThemeSettings } from '#contract/share.ts';

/** The share endpoint's response, as the contract types it (types only, nothing bundled). */
export type ShareData = ShareView;
export type SharedPlan = SharePlan;
export type SharedFeature = ShareFeature;
export type Theme = ThemeSettings;
