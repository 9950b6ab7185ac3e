/**
 * The customer id's shape, apart from the customer schemas: the share, usage and payment code
 * checks ids without building those schemas at its cold start.
 */

/** 1–128 characters of `A-Z a-z 0-9 . _ : @ -`, case-sensitive. */
export const customerIdPattern = /^[A-Za-z0-9._:@-]{1,128}$/;
export const isCustomerId = (value: string) => customerIdPattern.test(value);
