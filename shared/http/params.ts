import * as z from 'zod';
import { type DomainError, echo, featureNotFound, NotFoundError, planNotFound } from '#domain/errors.ts';
import { pathIdString } from '#domain/fields.ts';
import type { Principal } from '#domain/keys/keys.ts';
import type { ProjectKey } from '#domain/projects/load.ts';
import { lazySchema } from '#domain/validation.ts';

const notFoundAs = (what: string) => (raw: string) => new NotFoundError(`${what} ${echo(raw)} not found.`);

/**
 * Every path parameter of the route table, by name: its schema, and what a value that does
 * not parse means. A name means the same on every route; a route template with a name not
 * listed here answers 500 (parsePath throws) and fails the grants test, which serves every
 * route. A value that fails names nothing: 404.
 */
export const pathParameters = lazySchema(
  () =>
    ({
      slug: { schema: z.string(), notFound: undefined },
      shareId: { schema: z.string(), notFound: undefined },
      planId: { schema: pathIdString(), notFound: planNotFound },
      featureId: { schema: pathIdString(), notFound: featureNotFound },
      // Checked by the customer use cases: a malformed one is a 404 on reads, a 400 on a grant.
      customerId: { schema: z.string(), notFound: undefined },
      endpointId: { schema: pathIdString(), notFound: notFoundAs('Webhook endpoint') },
      experimentId: { schema: pathIdString(), notFound: notFoundAs('Experiment') },
      // A delivery's id (`dlv_…`): checked by the use case, a malformed one is a 404.
      deliveryId: { schema: z.string(), notFound: undefined },
    }) satisfies Record<
      string,
      { schema: z.ZodType<unknown, string>; notFound: ((raw: string) => DomainError) | undefined }
    >,
);

type ParameterName = keyof ReturnType<typeof pathParameters>;
type NamesIn<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | NamesIn<Rest> : never;

/** `/plans/{planId}` parses to `{ planId: number }`. */
export type ParsedPath<P extends string> = {
  [N in NamesIn<P> & ParameterName]: z.output<ReturnType<typeof pathParameters>[N]['schema']>;
};

export function parsePath(raw: Record<string, string | undefined>): Record<string, unknown> {
  const parsed: Record<string, unknown> = {};
  for (const [name, value = ''] of Object.entries(raw)) {
    const parameter = pathParameters()[name as ParameterName];
    if (!parameter) throw new Error(`Path parameter {${name}} is not declared in shared/http/params.ts`);
    const result = parameter.schema.safeParse(value);
    if (!result.success) throw parameter.notFound?.(value) ?? new Error(`Path parameter {${name}} did not parse`);
    parsed[name] = result.data;
  }
  return parsed;
}

/**
 * The caller's project named in the path by `{slug}`, handed to every action that has both:
 * tenancy is the owner half of the key, so no action can reach another owner's project.
 */
export function projectKey(principal: Principal | undefined, path: Record<string, unknown>): ProjectKey | undefined {
  return principal && typeof path.slug === 'string' ? { ownerId: principal.ownerId, slug: path.slug } : undefined;
}
