import { limits } from '#contract/limits.ts';
import { type CustomChoice, clampCount, customAmount, priceText } from './display.ts';
import { h, uniqueId } from './dom.ts';
import type { SharedFeature } from './types.ts';
import { priceElement, type View } from './view.ts';

/** The custom-plan builder: the visitor picks features (and quantities of countable ones) and checks out. */
export function customCard(view: View): HTMLElement {
  const { data, format } = view;
  const titleId = uniqueId('custom');
  const chosen = new Map<number, CustomChoice>();
  const price = priceElement();
  price.element.setAttribute('aria-live', 'polite');
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'button', class: 'button', part: 'button' }, 'Continue to checkout');

  const pick = h('div', { class: 'pick', role: 'group', 'aria-labelledby': titleId });
  for (const feature of data.features) pick.append(customChoice(feature, chosen, view, () => update()));

  const update = () => {
    const choices = [...chosen.values()];
    const interval = view.interval();
    price.show(priceText(customAmount(choices, interval, data), interval, format));
    button.setAttribute('aria-disabled', String(choices.length === 0));
  };
  view.watch(update);

  view.on(button, 'click', () => {
    if (chosen.size === 0) {
      error.textContent = 'Choose at least one feature.';
      return;
    }
    return view.checkout(button, error, {
      shareId: view.shareId,
      billingInterval: view.interval(),
      features: [...chosen.values()].map(({ feature, quantity }) =>
        feature.isCountable ? { featureId: feature.id, quantity } : { featureId: feature.id },
      ),
    });
  });

  return h(
    'article',
    { class: 'card custom-card', part: 'custom-card', 'aria-labelledby': titleId },
    h('h3', { id: titleId }, 'Custom plan'),
    h('p', { class: 'description' }, 'Pick the features you need.'),
    pick,
    price.element,
    button,
    error,
  );
}

/** One feature of the builder: a checkbox, and for a countable feature a quantity enabled while it is checked. */
function customChoice(
  feature: SharedFeature,
  chosen: Map<number, CustomChoice>,
  view: View,
  changed: () => void,
): HTMLElement {
  const { format } = view;
  const countPrice = feature.countableData?.countPrice ?? 0;
  const each =
    feature.isCountable && countPrice > 0
      ? `${format.money(feature.basePrice)}/month + ${format.unitMoney(countPrice)} per unit`
      : `${format.money(feature.basePrice)}/month`;
  const box = h('input', { type: 'checkbox' });
  const choice = h(
    'div',
    { class: 'choice', part: 'feature' },
    h('label', {}, box, h('span', {}, feature.name, h('span', { class: 'each' }, each))),
  );
  let quantity = feature.countableData?.usageCount ?? 0;
  let input: HTMLInputElement | undefined;
  if (feature.isCountable) {
    input = h('input', {
      type: 'number',
      min: 0,
      max: limits.usageCountMax,
      step: 1,
      value: quantity,
      inputmode: 'numeric',
      disabled: true,
    });
    const field = input;
    view.on(field, 'input', () => {
      quantity = clampCount(field.value, 0, limits.usageCountMax, quantity);
      if (chosen.has(feature.id)) chosen.set(feature.id, { feature, quantity });
      changed();
    });
    view.on(field, 'change', () => {
      field.value = String(quantity);
    });
    choice.append(
      h(
        'label',
        { class: 'count' },
        h('span', {}, 'Quantity', h('span', { class: 'sr-only' }, ` of ${feature.name}`)),
        field,
      ),
    );
  }
  view.on(box, 'change', () => {
    if (box.checked) chosen.set(feature.id, { feature, quantity });
    else chosen.delete(feature.id);
    if (input) input.disabled = !box.checked;
    changed();
  });
  return choice;
}
