import { beforeAll, describe, expect, test } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeProject } from '../fixtures/factories.ts';
import { storeInProject } from '../fixtures/table.ts';

/** customCSS over HTTP: refused when written (400 naming each rule), answered as stored otherwise. */

const server = useLocalServer();
let api: ApiClient;
let ownerId: string;

beforeAll(async () => {
  const owner = await newOwner('css');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
});

/** What the attack pass stored: the widget over the whole viewport, text over the page, a third-party fetch. */
const attack = [
  ':host { position: fixed; inset: 0; z-index: 2147483647 }',
  '.card::after { content: "HACKED"; position: fixed }',
  '.card { background: url(https://evil.example/pixel.png) }',
].join('\n');

const attackDetails = [
  { path: 'theme.customCSS', message: '`position: fixed` is not allowed (line 1, in `:host`)' },
  { path: 'theme.customCSS', message: '`inset` is not allowed in a rule on `:host` (line 1, in `:host`)' },
  {
    path: 'theme.customCSS',
    message: '`z-index` is not allowed in a rule whose selector includes `:host` (line 1, in `:host`)',
  },
  { path: 'theme.customCSS', message: '`position: fixed` is not allowed (line 2, in `.card::after`)' },
  {
    path: 'theme.customCSS',
    message: '`url()` is not allowed: customCSS may not load anything (line 3, in `.card`)',
  },
];

describe('customCSS is checked when it is written', () => {
  test('PUT theme with refused CSS is a 400 validation_error listing each rule; nothing changes', async () => {
    const { slug, shareId } = await makeProject(api, { theme: { customCSS: '.card { color: red }' } });
    const response = await api.put(`/api/v1/projects/${slug}`, { theme: { customCSS: attack, primaryColor: '#000' } });
    expect(response.status, response.text).toBe(400);
    expect(response.body).toEqual({
      error: {
        code: 'validation_error',
        message:
          'Invalid request body: theme.customCSS: `position: fixed` is not allowed (line 1, in `:host`) (and 4 more).',
        details: attackDetails,
      },
    });
    const stored = await api.get(`/api/v1/projects/${slug}`);
    expect(stored.body.themeSettings).toMatchObject({ customCSS: '.card { color: red }', primaryColor: '#4F46E5' });
    const share = await server.client().get(`/api/share/${shareId}`);
    expect(share.body.themeSettings.customCSS).toBe('.card { color: red }');
  });

  test('POST project with refused CSS is the same 400, and no project is created', async () => {
    const before = (await api.get('/api/v1/projects')).body.length;
    const response = await api.post('/api/v1/projects', { name: 'Overlay', theme: { customCSS: attack } });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual(attackDetails);
    expect((await api.get('/api/v1/projects')).body.length).toBe(before);
  });

  test('escapes, case, comments and nesting do not hide a rule', async () => {
    const { slug } = await makeProject(api);
    const sneaky = [
      ':HOST { & { POSIT\\ION: /* */ FIXED !IMPORTANT } }',
      '@media print { @font-face { font-family: x } }',
      '.a { background: image-set("https://evil.example/a.png" 1x) }',
      '@\\69mport "https://evil.example/x.css";',
    ].join('\n');
    const response = await api.put(`/api/v1/projects/${slug}`, { theme: { customCSS: sneaky } });
    expect(response.status).toBe(400);
    expect(response.body.error.details.map((detail: { message: string }) => detail.message)).toEqual([
      '`POSIT\\ION: FIXED` is not allowed (line 1, in `&`)',
      '`@font-face` is not allowed (line 2)',
      '`image-set()` is not allowed: customCSS may not load anything (line 3, in `.a`)',
      '`@\\69mport` is not allowed (line 4)',
    ]);
  });

  test('a CSS with many problems lists ten and says how many more', async () => {
    const { slug } = await makeProject(api);
    const many = Array.from({ length: 40 }, (_, i) => `.c${i} { position: fixed }`).join('\n');
    const response = await api.put(`/api/v1/projects/${slug}`, { theme: { customCSS: many } });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toHaveLength(11);
    expect(response.body.error.details[10]).toEqual({
      path: 'theme.customCSS',
      message: 'and 30 more: fix the ones above and send it again',
    });
  });

  test('accepted CSS is stored and answered as sent, in the project and the share view', async () => {
    const css =
      ':host { --pricing-primary: #0F766E; margin: 0 auto; padding: 8px }\n' +
      '.card { position: relative; box-shadow: 0 10px 30px rgb(0 0 0 / 0.2); transform: translateY(-2px) }\n' +
      '.badge { position: absolute; z-index: 2 }\n@media (max-width: 600px) { .plans { gap: 0 } }';
    const { slug, shareId } = await makeProject(api);
    const response = await api.put(`/api/v1/projects/${slug}`, { theme: { customCSS: css } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.themeSettings.customCSS).toBe(css);
    const share = await server.client().get(`/api/share/${shareId}`);
    expect(share.body.themeSettings.customCSS).toBe(css);
  });

  test('a customCSS stored before the rule is answered as stored, and other theme fields still change', async () => {
    const { slug, shareId } = await makeProject(api);
    await storeInProject({ ownerId, slug, shareId }, 'theme', 'customCSS', attack);
    expect((await api.get(`/api/v1/projects/${slug}`)).body.themeSettings.customCSS).toBe(attack);
    expect((await server.client().get(`/api/share/${shareId}`)).body.themeSettings.customCSS).toBe(attack);
    // The rule applies to a customCSS that is written, not to one that is kept.
    const recolor = await api.put(`/api/v1/projects/${slug}`, { theme: { primaryColor: '#111111' } });
    expect(recolor.status, recolor.text).toBe(200);
    expect(recolor.body.themeSettings).toMatchObject({ primaryColor: '#111111', customCSS: attack });
    // Sending it back as it is counts as writing it.
    const resend = await api.put(`/api/v1/projects/${slug}`, { theme: { customCSS: attack } });
    expect(resend.status).toBe(400);
    const cleared = await api.put(`/api/v1/projects/${slug}`, { theme: { customCSS: '' } });
    expect(cleared.body.themeSettings.customCSS).toBe('');
  });
});
