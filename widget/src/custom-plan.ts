import { limits } from '#contract/limits.ts';
import { intervalPrice } from '#contract/pricing.ts';
import { type CustomChoice, chargedAmount, clampCount, customAmount, priceText } from './display.ts';
import { h, uniqueId } from './dom.ts';
import type { SharedFeature } from './types.ts';
import { priceElement, unavailableReason, type View } from './view.ts';

/** The custom-plan builder: the visitor picks features (and quantities of countable ones) and checks out. */
export function customCard(view: View): HTMLElement {
  const { data, format } = view;
  const { t } = format;
  const titleId = uniqueId('custom');
  const chosen = new Map<number, CustomChoice>();
  const price = priceElement();
  price.element.setAttribute('aria-live', 'polite');
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'button', class: 'button', part: 'button' }, t('continue'));
  const reason = unavailableReason(button, view);

  const pick = h('div', { class: 'pick details', role: 'group', 'aria-labelledby': titleId });
  for (const feature of data.features) pick.append(customChoice(feature, chosen, view, () => update()));

  const update = () => {
    const choices = [...chosen.values()];
    const interval = view.interval();
    price.show(priceText(customAmount(choices, interval, data), interval, format));
    button.setAttribute('aria-disabled', String(choices.length === 0 || reason !== null));
  };
  view.watch(update);

  view.on(button, 'click', () => {
    if (chosen.size === 0) {
      if (!reason) error.textContent = t('chooseOne');
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

  // The same rows as a plan's card: the builder, which may be long, scrolls in the features row.
  return h(
    'article',
    { class: 'card custom-card', part: 'custom-card', 'aria-labelledby': titleId },
    h('h3', { id: titleId, part: 'name' }, t('custom')),
    h('p', { class: 'description' }, t('customHint')),
    price.element,
    h('div', { class: 'action' }, button, reason, error),
    pick,
  );
}

/** One feature of the builder: a checkbox, and for a countable feature a quantity enabled while it is checked. */
function customChoice(
  feature: SharedFeature,
  chosen: Map<number, CustomChoice>,
  view: View,
  changed: () => void,
): HTMLElement {
  const { format, data } = view;
  const { t } = format;
  const countPrice = feature.countableData?.countPrice ?? 0;
  const each = h('span', { class: 'each' });
  // Per month, or per month of a yearly charge (the discount applied), as the total above.
  view.watch(() => {
    const yearly = view.interval() === 'year';
    const base = yearly ? format.monthOf(chargedAmount(feature.basePrice, 'year', data)) : feature.basePrice;
    const unit = yearly ? intervalPrice(countPrice, 'year', data) / 12 : countPrice;
    const line = `${format.money(base)}${t('perMonth')}`;
    each.textContent =
      feature.isCountable && countPrice > 0 ? `${line} + ${t('perUnit', { a: format.unitMoney(unit) })}` : line;
  });
  const box = h('input', { type: 'checkbox' });
  const choice = h('div', { class: 'choice', part: 'feature' }, h('label', {}, box, h('span', {}, feature.name, each)));
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
        h('span', {}, t('quantity'), h('span', { class: 'sr-only' }, t('quantityOf', { name: feature.name }))),
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
