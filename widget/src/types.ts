import type { ShareView } from '#domain/share/schemas.ts';

/** The share endpoint's response, typed from the server's own schema (types only, nothing bundled). */
export type ShareData = ShareView;
export type SharedPlan = ShareView['plans'][number];
export type SharedFeature = ShareView['features'][number];
export type Theme = ShareView['themeSettings'];
