type Attributes = Record<string, string | number | boolean | undefined>;
type Child = Node | string | null | undefined | false;

/**
 * An element with attributes and children. Strings become text nodes, never markup: nothing
 * the share data holds (names, descriptions) can turn into HTML.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) element.append(child);
  }
  return element;
}

let counter = 0;
/** An id unique in the page, for aria-labelledby and label/for pairs. */
export const uniqueId = (prefix: string) => `${prefix}-${++counter}`;
