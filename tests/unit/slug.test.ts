import { describe, expect, test } from 'vitest';
import { slugCandidate, slugify, slugPattern } from '#domain/projects/slug.ts';

describe('slugify', () => {
  test.each([
    ['Acme', 'acme'],
    ['Acme Pro', 'acme-pro'],
    ['  Acme   Pro  ', 'acme-pro'],
    ['Crème Brûlée', 'creme-brulee'],
    ['Ærø & Co.', 'r-co'],
    ['a--b__c', 'a-b-c'],
    ['!!!', ''],
    ['日本語', ''],
    ['v2.0 Beta', 'v2-0-beta'],
  ])('%j → %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  test('cuts at 64 without a trailing hyphen', () => {
    const slug = slugify(`${'a'.repeat(63)} b`);
    expect(slug.length).toBeLessThanOrEqual(64);
    expect(slug).toMatch(slugPattern);
  });
});

describe('slugCandidate', () => {
  test('numbers from the second on', () => {
    expect(slugCandidate('acme', 1)).toBe('acme');
    expect(slugCandidate('acme', 2)).toBe('acme-2');
    expect(slugCandidate('acme', 13)).toBe('acme-13');
  });

  test('falls back to "project" when nothing was derivable', () => {
    expect(slugCandidate('', 1)).toBe('project');
    expect(slugCandidate('', 3)).toBe('project-3');
  });

  test('stays within 64 characters and valid, suffix included', () => {
    const base = slugify('x'.repeat(80));
    for (const n of [1, 2, 10, 1000]) {
      const slug = slugCandidate(base, n);
      expect(slug.length).toBeLessThanOrEqual(64);
      expect(slug).toMatch(slugPattern);
    }
    expect(slugCandidate(`${'a'.repeat(61)}-b`, 22)).toMatch(slugPattern);
  });
});
