import { isDeepStrictEqual } from 'node:util';
import { allocateIds } from '#db/ids.ts';
import {
  insertProject,
  listOwnerProjects,
  type ProjectChanges,
  type RemovableField,
  type UrlField,
  updateProjectItem,
} from '#db/projects.ts';
import type { NewProjectItem, ProjectItem, ProjectKey } from '#db/types.ts';
import { changeEntry, projectFields } from '../changes.ts';
import { ConflictError } from '../errors.ts';
import { definedOnly, withoutNulls } from '../fields.ts';
import { sealPaymentKey } from '../payments/account.ts';
import { sealWebhookSecret } from '../payments/webhook-secret.ts';
import type { Keyring } from '../ports.ts';
import { LOWER_ALNUM, randomToken } from '../random.ts';
import { checkIfMatch, revisionGuard, untilWritten, type Writer } from '../versions.ts';
import { loadProject } from './load.ts';
import {
  type CreateProjectInput,
  type ProjectSummaryView,
  type ProjectView,
  projectDefaults,
  type UpdateProjectInput,
} from './schemas.ts';
import { slugCandidate, slugify } from './slug.ts';
import { defaultTheme, readTheme, storedTheme } from './theme.ts';
import { toProjectSummaryView, toProjectView } from './view.ts';

const urlFields: UrlField[] = [
  'checkoutSuccessUrl',
  'checkoutCancelUrl',
  'checkoutTestSuccessUrl',
  'checkoutTestCancelUrl',
  'signupUrl',
];
const MAX_SLUG_ATTEMPTS = 50;

/** 26 characters of [a-z0-9]: about 134 random bits, unguessable and URL-safe. */
const newShareId = () => randomToken(26, LOWER_ALNUM);

export async function listProjects(ownerId: string, publicBaseUrl: string): Promise<ProjectSummaryView[]> {
  const items = await listOwnerProjects(ownerId);
  return items.sort((a, b) => a.projectId - b.projectId).map((item) => toProjectSummaryView(item, publicBaseUrl));
}

export async function getProject(key: ProjectKey, publicBaseUrl: string): Promise<ProjectView> {
  return toProjectView(await loadProject(key), publicBaseUrl);
}

export async function createProject(
  keyring: Keyring,
  ownerId: string,
  input: CreateProjectInput,
  publicBaseUrl: string,
  writer: Writer,
): Promise<ProjectView> {
  const [projectId] = await allocateIds('project');
  if (projectId === undefined) throw new Error('No project id allocated');
  const now = new Date().toISOString();
  const { slug, theme, paymentSecretKey, paymentWebhookSecret, ...fields } = input;
  const payment = {
    ...(paymentSecretKey ? await sealPaymentKey(keyring, projectId, paymentSecretKey) : {}),
    ...(paymentWebhookSecret ? await sealWebhookSecret(keyring, projectId, paymentWebhookSecret) : {}),
  };
  // The project's first change-log entry, written with it (the slug it gets is in `after`).
  const entry = changeEntry(projectId, writer, { type: 'project', id: projectId }, null, {});
  const insert = (candidate: string) => {
    const item: NewProjectItem = {
      ...projectDefaults,
      // On create a null URL (or key) is the same as leaving it out.
      ...withoutNulls(fields),
      ...payment,
      name: fields.name,
      ownerId,
      slug: candidate,
      projectId,
      shareId: newShareId(),
      theme: storedTheme({ ...defaultTheme, ...definedOnly(theme ?? {}) }),
      createdAt: now,
      updatedAt: now,
    };
    return insertProject(item, { ...entry, after: projectFields(item as ProjectItem) });
  };
  const project = slug
    ? await createWithExplicitSlug(slug, insert)
    : await createWithDerivedSlug(ownerId, slugify(fields.name), insert);
  return toProjectView(
    { project, features: [], plans: [], planFeatures: [], experiments: [], experimentSlots: [] },
    publicBaseUrl,
  );
}

/** Inserts the new project under a slug, with its change-log entry. */
type Insert = (slug: string) => ReturnType<typeof insertProject>;

async function createWithExplicitSlug(slug: string, insert: Insert) {
  const created = await insert(slug);
  if (created !== 'slug_taken') return created;
  throw new ConflictError(
    `You already have a project with slug "${slug}": choose another slug or omit it to derive one.`,
  );
}

async function createWithDerivedSlug(ownerId: string, base: string, insert: Insert) {
  // One Query for the slugs in use, then conditional puts: a slug taken meanwhile by a
  // concurrent create just moves on to the next candidate.
  const taken = new Set((await listOwnerProjects(ownerId)).map((p) => p.slug));
  let n = 1;
  for (let attempt = 0; attempt < MAX_SLUG_ATTEMPTS; attempt++) {
    while (taken.has(slugCandidate(base, n))) n++;
    const slug = slugCandidate(base, n);
    const created = await insert(slug);
    if (created !== 'slug_taken') return created;
    taken.add(slug);
  }
  throw new ConflictError('Could not find a free slug for this name; send an explicit "slug".');
}

type SealedPayment = Awaited<ReturnType<typeof sealPaymentKey>>;
type SealedWebhook = Awaited<ReturnType<typeof sealWebhookSecret>>;

/**
 * `payment`, `webhook`: the new secret already sealed, null to disconnect, undefined to
 * leave it.
 */
function projectChanges(
  current: ProjectItem,
  input: UpdateProjectInput,
  payment: SealedPayment | null | undefined,
  webhook: SealedWebhook | null | undefined,
) {
  const { theme, paymentSecretKey: _sealedSeparately, paymentWebhookSecret: _sealedToo, ...fields } = input;
  const set: Partial<ProjectChanges> = {};
  const remove: RemovableField[] = [];
  if (payment) Object.assign(set, payment);
  if (payment === null && current.paymentKeySealed !== undefined) remove.push('paymentKeySealed', 'paymentsMode');
  if (webhook) Object.assign(set, webhook);
  if (webhook === null && current.webhookSecretSealed !== undefined) remove.push('webhookSecretSealed');
  for (const [field, value] of Object.entries(definedOnly(fields)) as [keyof typeof fields, unknown][]) {
    if (value === null && (urlFields as string[]).includes(field)) {
      if (current[field as UrlField] !== undefined) remove.push(field as UrlField);
    } else if (current[field] !== value) {
      Object.assign(set, { [field]: value });
    }
  }
  if (theme) {
    const stored = readTheme(current.theme);
    const merged = { ...stored, ...definedOnly(theme) };
    if (!isDeepStrictEqual(merged, stored)) set.theme = storedTheme(merged);
  }
  return { set, remove };
}

/**
 * Partial update: only fields present change; `theme` merges into the stored theme. With
 * If-Match, only while it names the project as GET answers it.
 */
export async function updateProject(
  keyring: Keyring,
  key: ProjectKey,
  input: UpdateProjectInput,
  publicBaseUrl: string,
  writer: Writer,
): Promise<ProjectView> {
  let payment: SealedPayment | null | undefined = input.paymentSecretKey === null ? null : undefined;
  let webhook: SealedWebhook | null | undefined = input.paymentWebhookSecret === null ? null : undefined;
  return untilWritten('project', writer, async () => {
    const partition = await loadProject(key);
    const current = partition.project;
    checkIfMatch(writer.ifMatch, toProjectView(partition, publicBaseUrl));
    if (input.paymentSecretKey && !payment) {
      // Sealed anew even when it is the key already stored: comparing would mean decrypting.
      payment = await sealPaymentKey(keyring, current.projectId, input.paymentSecretKey);
    }
    if (input.paymentWebhookSecret && !webhook) {
      webhook = await sealWebhookSecret(keyring, current.projectId, input.paymentWebhookSecret);
    }
    const { set, remove } = projectChanges(current, input, payment, webhook);
    if (Object.keys(set).length === 0 && remove.length === 0) return toProjectView(partition, publicBaseUrl);
    const changes = { ...set, updatedAt: new Date().toISOString() };
    const updated: ProjectItem = {
      ...current,
      ...changes,
      version: current.version + 1,
      revision: current.revision + 1,
    };
    for (const field of remove) delete updated[field];
    const resource = { type: 'project', id: current.projectId } as const;
    const entry = changeEntry(current.projectId, writer, resource, projectFields(current), projectFields(updated));
    const outcome = await updateProjectItem(
      key,
      current,
      changes,
      remove,
      entry,
      revisionGuard(writer, current.revision),
    );
    return outcome === 'updated' ? toProjectView({ ...partition, project: updated }, publicBaseUrl) : 'stale';
  });
}
