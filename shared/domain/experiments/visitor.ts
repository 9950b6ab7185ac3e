import * as z from 'zod';
import { lazySchema, strictObject } from '../validation.ts';

/**
 * The visitor id and the two inputs that carry it, apart from the experiment schemas: the share
 * and payments functions read these and none of the rest, so their cold start does not build it.
 */

/** A visitor id as the widget makes it: 1–64 characters of `A-Z a-z 0-9 _ -`. */
export const visitorPattern = /^[A-Za-z0-9_-]{1,64}$/;
const visitorMessage = 'must be 1-64 characters of letters, digits, _ and -';
export const Visitor = lazySchema(() => z.string({ error: 'is required' }).regex(visitorPattern, visitorMessage));

export const ViewBody = lazySchema(() => strictObject({ visitor: Visitor() }));
export const ShareQuery = lazySchema(() => z.object({ visitor: Visitor().optional() }));
