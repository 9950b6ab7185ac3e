/**
 * The widget's own styles, inside its shadow root. Every theme value arrives as a custom
 * property on :host (see theme.ts), so a host page can also override them from outside:
 * `pricing-table { --pricing-primary: #0F766E }` or `pricing-table::part(card) { ... }`.
 * The project's customCSS comes after these rules, so it wins over them, except the first
 * line: an unnamed cascade layer whose !important declarations no later sheet can outrank keeps
 * the element's painting inside its box (paint containment) and the element in its place, even
 * for a customCSS that gets past the server's check (docs/decisions.md "customCSS").
 * Cards are subgrids of six rows (name, description, price, seats, button, features) so they
 * line up in a row.
 */
export const baseCss = `
@layer{:host{contain:paint!important;overflow-clip-margin:0px!important;position:static!important;z-index:auto!important;transform:none!important;translate:none!important;rotate:none!important;scale:none!important;box-shadow:none!important;outline:none!important;filter:none!important;-webkit-box-reflect:none!important}:host>*{contain:paint!important;position:static!important}}
:host{all:initial;display:block;box-sizing:border-box;font-family:var(--pricing-font);color:var(--pricing-text);line-height:1.5;font-size:16px;overflow-wrap:anywhere;
--pricing-gap:1.25rem}
:host{font-family:var(--pricing-font,Inter,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif);color:var(--pricing-page-text,#111827)}
:host([hidden]){display:none}
*,*::before,*::after{box-sizing:inherit}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.header{margin:0 0 1.5rem}
.header h2{margin:0 0 .25rem;font-size:1.75rem;line-height:1.25}
.header p{margin:0;color:var(--pricing-page-muted)}
.toggle-row{display:flex;justify-content:var(--pricing-toggle-align,center);margin:0 0 1.5rem}
.toggle{display:inline-flex;align-items:center;flex-wrap:wrap;gap:.6rem;font-size:.95rem}
.toggle .choice-label{cursor:pointer}
.switch{position:relative;flex:none;width:2.75rem;height:1.5rem;border-radius:999px;border:0;padding:0;cursor:pointer;background:var(--pricing-page-muted);transition:background .15s}
.switch::after{content:"";position:absolute;top:.1875rem;left:.1875rem;width:1.125rem;height:1.125rem;border-radius:50%;background:var(--pricing-page-bg,#fff);transition:transform .15s}
.switch[aria-checked="true"]{background:var(--pricing-primary)}
.switch[aria-checked="true"]::after{transform:translateX(1.25rem);background:var(--pricing-button-text)}
.toggle .save{color:var(--pricing-page-accent);font-weight:600}
.plans{padding-top:.75rem;display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,16rem),1fr));column-gap:var(--pricing-gap)}
.card{position:relative;display:grid;grid-row:span 6;grid-template-rows:subgrid;row-gap:0;margin:0 0 var(--pricing-gap);padding:1.5rem;background:var(--pricing-card-bg);color:var(--pricing-text);border:1px solid var(--pricing-card-border);border-radius:var(--pricing-radius)}
.card>*{margin:0 0 .75rem;min-width:0}
.card>h3{grid-row:1}
.card>.description{grid-row:2}
.card>.pricing{grid-row:3}
.card>.extra{grid-row:4}
.card>.action{grid-row:5}
.card>.details{grid-row:6;margin:0}
.card>.details.wide{grid-row:5/span 2}
@supports not (grid-template-rows:subgrid){.card{display:flex;flex-direction:column}.card>.details{flex:1}}
.card.popular{border-color:var(--pricing-primary);outline:1px solid var(--pricing-primary);outline-offset:-2px}
.card h3{font-size:1.25rem;line-height:1.3;display:flex;align-items:center;gap:.5rem;flex-wrap:wrap}
.card .description{color:var(--pricing-muted);font-size:.95rem}
.badge{display:inline-block;padding:.125rem .625rem;border-radius:999px;background:var(--pricing-primary);color:var(--pricing-button-text);font-size:.75rem;font-weight:600;letter-spacing:.02em;line-height:1.5}
.card>.badge.top{position:absolute;margin:0;top:0;left:50%;transform:translate(-50%,-50%);white-space:nowrap}
.pricing{display:flex;flex-direction:column;gap:.125rem}
.price{margin:0;display:flex;flex-wrap:wrap;align-items:baseline;gap:.25rem}
.price .amount{font-size:2rem;font-weight:700;line-height:1.2}
.price .period,.note{color:var(--pricing-muted);font-size:.9rem}
.note{margin:0}
.note:empty{display:none}
.features{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:.4rem}
.feature{display:flex;gap:.5rem;align-items:baseline;font-size:.95rem}
.feature[hidden]{display:none}
.feature .mark{flex:none;width:1rem;text-align:center;font-weight:700;color:var(--pricing-accent)}
.feature.excluded,.feature.excluded .mark,.feature .limit{color:var(--pricing-muted)}
.more{margin:.75rem 0 0;padding:0;border:0;background:none;font:inherit;font-size:.9rem;font-weight:600;color:var(--pricing-accent);cursor:pointer;text-decoration:underline;text-underline-offset:2px}
label.count{display:flex;align-items:center;justify-content:space-between;gap:.5rem;font-size:.95rem}
label.count:has(input:disabled){color:var(--pricing-muted)}
input[type=number]{width:7rem;font:inherit;padding:.3rem .5rem;border:1px solid var(--pricing-muted);border-radius:calc(var(--pricing-radius) / 2);background:var(--pricing-card-bg);color:inherit}
input:disabled{opacity:.5;cursor:not-allowed}
input[type=checkbox]{accent-color:var(--pricing-primary);width:1rem;height:1rem;margin:0;flex:none;position:relative;top:.15em}
.button{display:flex;justify-content:center;align-items:center;gap:.5rem;width:100%;padding:.7rem .75rem;font:inherit;font-weight:600;line-height:1.25;white-space:nowrap;border:0;border-radius:var(--pricing-radius);background:var(--pricing-primary);color:var(--pricing-button-text);cursor:pointer;text-decoration:none;transition:background .15s}
.button:hover{background:var(--pricing-hover)}
.button[aria-disabled="true"]{opacity:.55;cursor:not-allowed}
.button[aria-disabled="true"]:hover{background:var(--pricing-primary)}
.button[aria-busy="true"]{cursor:progress}
.button[aria-busy="true"]::before{content:"";width:1em;height:1em;border-radius:50%;border:2px solid currentColor;border-right-color:transparent;animation:spin .8s linear infinite}
@keyframes spin{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){.button[aria-busy="true"]::before{animation:none}.switch,.switch::after{transition:none}}
.switch:focus-visible,.button:focus-visible,input:focus-visible,.retry:focus-visible,.more:focus-visible{outline:3px solid var(--pricing-primary);outline-offset:2px}
.reason{margin:.5rem 0 0;color:var(--pricing-muted);font-size:.85rem;text-align:center}
.error{margin:.5rem 0 0;color:var(--pricing-error);font-size:.9rem}
.error:empty{display:none}
.custom-card .pick{display:flex;flex-direction:column;gap:.5rem;max-height:22rem;overflow-y:auto;overscroll-behavior:contain;padding:.25rem}
.custom-card .choice{display:flex;flex-direction:column;gap:.35rem}
.custom-card .choice>label{display:flex;gap:.5rem;align-items:baseline;font-size:.95rem}
.custom-card .choice .each{display:block;color:var(--pricing-muted);font-size:.85rem}
.custom-card .choice label.count{padding-left:1.5rem}
.card.current{border-color:var(--pricing-accent);outline:2px solid var(--pricing-accent);outline-offset:-3px}
.current{margin:0 0 .5rem;text-align:center;font-weight:600;color:var(--pricing-accent)}
dialog.change{border:0;border-radius:var(--pricing-radius);padding:1.5rem;width:min(26rem,92vw);background:var(--pricing-card-bg);color:var(--pricing-text)}
dialog.change::backdrop{background:rgb(0 0 0/.5)}
dialog.change h3{margin:0 0 .75rem}
.dialog-actions{display:flex;gap:.75rem;justify-content:flex-end;align-items:center;margin-top:1rem}
.dialog-actions .button{width:auto}
.dialog-actions .retry{color:inherit}
.message{padding:1.5rem;text-align:center;color:var(--pricing-page-muted,#4B5563);font-size:.95rem;display:flex;flex-direction:column;align-items:center;gap:.75rem}
.message p{margin:0}
.retry{font:inherit;padding:.4rem 1rem;border-radius:6px;border:1px solid currentColor;background:transparent;color:var(--pricing-page-text,#111827);cursor:pointer}
`;
