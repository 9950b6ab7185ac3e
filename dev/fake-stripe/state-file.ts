import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Store } from './store.ts';
import type { FakeSession, FakeSubscription } from './types.ts';

/**
 * The fake's Checkout Sessions and subscriptions, kept in a file (under `npm start`'s
 * DATA_DIR, beside the table's data) so that a restart forgets no purchase: receipts and the
 * dashboard still find them, as Stripe would. Webhook endpoints are not kept: `npm start`
 * registers every project's again at each start. The file holds customers' e-mails: 0600.
 */

interface State {
  sessions: FakeSession[];
  subscriptions: FakeSubscription[];
}

export function loadState(file: string, store: Pick<Store, 'sessions' | 'subscriptions'>): void {
  if (!existsSync(file)) return;
  let state: State;
  try {
    state = JSON.parse(readFileSync(file, 'utf8')) as State;
    if (!Array.isArray(state.sessions) || !Array.isArray(state.subscriptions)) throw new Error('not a state');
  } catch {
    throw new Error(`${file} is not the fake Stripe's state: remove it to start the fake with none.`);
  }
  for (const session of state.sessions) store.sessions.set(session.id, session);
  for (const subscription of state.subscriptions) store.subscriptions.set(subscription.id, subscription);
}

/** Written whole, to a temporary file renamed over the old one, so a crash leaves one or the other. */
export function saveState(file: string, store: Pick<Store, 'sessions' | 'subscriptions'>): void {
  const state: State = { sessions: [...store.sessions.values()], subscriptions: [...store.subscriptions.values()] };
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(state), { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}
