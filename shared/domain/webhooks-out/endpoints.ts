import { randomBytes } from 'node:crypto';
import { type WebhookEventType, webhookEventTypes } from '#contract/enums.ts';
import { allocateIds } from '#db/ids.ts';
import { getProjectItem } from '#db/projects.ts';
import type { ProjectItem, ProjectKey } from '#db/types.ts';
import {
  insertEndpoint,
  listEndpointItems,
  removeEndpoint,
  replaceEndpointSecret,
  type WebhookEndpointItem,
} from '#db/webhooks-out.ts';
import { changeEntry } from '../changes.ts';
import { LimitExceededError, NotFoundError, projectNotFound, ValidationError } from '../errors.ts';
import type { Keyring } from '../ports.ts';
import { slugPattern } from '../projects/slug.ts';
import type { Writer } from '../versions.ts';
import { type CreateWebhookEndpointBody, ENDPOINTS_MAX } from './schemas.ts';
import { urlRefusal, type WebhookUrlPolicy } from './url-rules.ts';

/**
 * A project's webhook endpoints (lifecycle.md §4): each has its own signing secret, shown
 * once, at its create or rotation, and sealed at rest by the keyring like the payment keys
 * (its own encryption context: it opens for this project and endpoint only).
 */

const secretContext = (projectId: number, endpointId: number) => ({
  projectId: String(projectId),
  field: 'webhookEndpointSecret',
  endpointId: String(endpointId),
});

/** `whsec_` + base64 of 24 random bytes: the form Standard Webhooks libraries take. */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export const webhookEndpointNotFound = (id: number | string) =>
  new NotFoundError(`Webhook endpoint ${String(id).slice(0, 30)} not found.`);

async function loadProjectItem(key: ProjectKey): Promise<ProjectItem> {
  const project = slugPattern.test(key.slug) ? await getProjectItem(key) : undefined;
  if (!project) throw projectNotFound(key.slug);
  return project;
}

const scopeOf = ({ ownerId, slug, shareId }: ProjectItem) => ({ ownerId, slug, shareId });

export function endpointView(item: WebhookEndpointItem) {
  return {
    id: item.endpointId,
    url: item.url,
    events: item.events as WebhookEventType[],
    description: item.description,
    createdAt: item.createdAt,
    disabledAt: item.disabledAt ?? null,
  };
}

/** The change-log entry of an endpoint's write (null: none before, or after); its secret reads "[set]". */
function endpointChange(writer: Writer, before: WebhookEndpointItem | null, after: WebhookEndpointItem | null) {
  const { projectId, endpointId } = (before ?? after) as WebhookEndpointItem;
  const logged = (item: WebhookEndpointItem | null) => item && { ...endpointView(item), secret: '[set]' };
  return changeEntry(projectId, writer, { type: 'webhookEndpoint', id: endpointId }, logged(before), logged(after));
}

/** The project and one of its endpoints: 404 when either is missing. */
export async function findEndpoint(key: ProjectKey, endpointId: number) {
  const project = await loadProjectItem(key);
  const endpoint = (await listEndpointItems(project.projectId)).find((item) => item.endpointId === endpointId);
  if (!endpoint) throw webhookEndpointNotFound(endpointId);
  return { project, endpoint };
}

export async function listWebhookEndpoints(key: ProjectKey) {
  const project = await loadProjectItem(key);
  return { webhookEndpoints: (await listEndpointItems(project.projectId)).map(endpointView) };
}

const ATTEMPTS = ENDPOINTS_MAX + 2;
const tooMany = () =>
  new LimitExceededError(`A project has at most ${ENDPOINTS_MAX} webhook endpoints; delete one first.`);

export async function createWebhookEndpoint(
  keyring: Keyring,
  key: ProjectKey,
  body: CreateWebhookEndpointBody,
  policy: WebhookUrlPolicy,
  writer: Writer,
) {
  const refusal = urlRefusal(body.url, policy);
  if (refusal) throw new ValidationError(`Invalid request body: url ${refusal}.`, [{ path: 'url', message: refusal }]);
  const project = await loadProjectItem(key);
  const events = body.events ? webhookEventTypes.filter((type) => body.events?.includes(type)) : [...webhookEventTypes];
  const secret = newSecret();
  let sealed: { endpointId: number; secretSealed: string } | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const taken = new Set((await listEndpointItems(project.projectId)).map((item) => item.slot));
    const slot = Array.from({ length: ENDPOINTS_MAX }, (_, i) => i).find((i) => !taken.has(i));
    if (slot === undefined) throw tooMany();
    if (!sealed) {
      const [endpointId] = (await allocateIds('webhookEndpoint')) as [number];
      sealed = { endpointId, secretSealed: await keyring.seal(secret, secretContext(project.projectId, endpointId)) };
    }
    const item = {
      projectId: project.projectId,
      slot,
      endpointId: sealed.endpointId,
      url: body.url,
      events,
      description: body.description ?? '',
      secretSealed: sealed.secretSealed,
      createdAt: new Date().toISOString(),
    };
    const outcome = await insertEndpoint(scopeOf(project), item, [endpointChange(writer, null, item)]);
    if (outcome === 'project_gone') throw projectNotFound(key.slug);
    if (outcome === 'committed') return { ...endpointView(item), secret };
  }
  throw tooMany();
}

export async function deleteWebhookEndpoint(key: ProjectKey, endpointId: number, writer: Writer): Promise<void> {
  const { project, endpoint } = await findEndpoint(key, endpointId);
  if ((await removeEndpoint(scopeOf(project), endpoint, [endpointChange(writer, endpoint, null)])) === 'gone')
    throw webhookEndpointNotFound(endpointId);
}

/** A new secret: from now on every attempt, resends of older events included, is signed with it only. */
export async function rotateWebhookSecret(keyring: Keyring, key: ProjectKey, endpointId: number, writer: Writer) {
  const { project, endpoint } = await findEndpoint(key, endpointId);
  const secret = newSecret();
  const sealed = await keyring.seal(secret, secretContext(project.projectId, endpointId));
  const change = endpointChange(writer, endpoint, endpoint);
  const outcome = await replaceEndpointSecret(scopeOf(project), endpoint, sealed, [change]);
  if (outcome === 'gone') throw webhookEndpointNotFound(endpointId);
  return { secret };
}

/** The endpoint's signing secret in clear, to sign one attempt; never stored in clear, logged or returned. */
export const openEndpointSecret = (keyring: Keyring, endpoint: WebhookEndpointItem) =>
  keyring.open(endpoint.secretSealed, secretContext(endpoint.projectId, endpoint.endpointId));
