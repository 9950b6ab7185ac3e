/**
 * The widget's own styles, inside its shadow root. Every theme value arrives as a custom
 * property on :host (see element.ts), so a host page can also override them from outside:
 * `pricing-table { --pricing-primary: #0F766E }` or `pricing-table::part(card) { ... }`.
 * The project's customCSS comes after these rules, so it wins over them, except the first
 * line: an unnamed cascade layer whose !important declarations no later sheet can outrank keeps
 * the element's painting inside its box (paint containment) and the element in its place, even
 * for a customCSS stored before the server refused such CSS (docs/decisions.md "customCSS").
 */
export const baseCss = `
@layer{:host{contain:paint!important;overflow-clip-margin:0px!important;position:static!important;z-index:auto!important;transform:none!important;translate:none!important;rotate:none!important;scale:none!important;box-shadow:none!important;outline:none!important;filter:none!important;-webkit-box-reflect:none!important}:host>*{contain:paint!important;position:static!important}}
:host{all:initial;display:block;box-sizing:border-box;font-family:var(--pricing-font);color:var(--pricing-text);line-height:1.5;font-size:16px;
--pricing-text:#111827;--pricing-muted:#6B7280;--pricing-gap:1.25rem}
:host([hidden]){display:none}
*,*::before,*::after{box-sizing:inherit}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.header{margin:0 0 1.5rem}
.header h2{margin:0 0 .25rem;font-size:1.75rem;line-height:1.25}
.header p{margin:0;color:var(--pricing-muted)}
.toggle-row{display:flex;justify-content:var(--pricing-toggle-align,center);margin:0 0 1.5rem}
.toggle{display:inline-flex;align-items:center;gap:.6rem;font-size:.95rem}
.switch{position:relative;width:2.75rem;height:1.5rem;border-radius:999px;border:0;padding:0;cursor:pointer;background:#D1D5DB;transition:background .15s}
.switch::after{content:"";position:absolute;top:.1875rem;left:.1875rem;width:1.125rem;height:1.125rem;border-radius:50%;background:#fff;transition:transform .15s}
.switch[aria-checked="true"]{background:var(--pricing-primary)}
.switch[aria-checked="true"]::after{transform:translateX(1.25rem)}
.toggle .save{color:var(--pricing-primary);font-weight:600}
.plans{padding-top:.75rem;display:grid;grid-template-columns:repeat(auto-fit,minmax(15rem,1fr));gap:var(--pricing-gap);align-items:stretch}
.card{position:relative;display:flex;flex-direction:column;gap:.75rem;padding:1.5rem;background:var(--pricing-card-bg);border:1px solid var(--pricing-card-border);border-radius:var(--pricing-radius)}
.card.popular{border:2px solid var(--pricing-primary)}
.card h3{margin:0;font-size:1.25rem;display:flex;align-items:center;gap:.5rem;flex-wrap:wrap}
.card .description{margin:0;color:var(--pricing-muted);font-size:.95rem}
.badge{display:inline-block;padding:.125rem .625rem;border-radius:999px;background:var(--pricing-primary);color:var(--pricing-button-text);font-size:.75rem;font-weight:600;letter-spacing:.02em}
.badge.top{position:absolute;top:0;left:50%;transform:translate(-50%,-50%);white-space:nowrap}
.price{margin:0;display:flex;align-items:baseline;gap:.25rem}
.price .amount{font-size:2rem;font-weight:700;line-height:1.2}
.price .period,.note{color:var(--pricing-muted);font-size:.9rem}
.note{margin:0}
.note:empty{display:none}
.features{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:.4rem;flex:1}
.feature{display:flex;gap:.5rem;align-items:baseline;font-size:.95rem}
.feature .mark{flex:none;width:1rem;text-align:center;font-weight:700;color:var(--pricing-primary)}
.feature.excluded{color:var(--pricing-muted)}
.feature.excluded .mark{color:var(--pricing-muted)}
.feature .limit{color:var(--pricing-muted)}
label.count{display:flex;align-items:center;justify-content:space-between;gap:.5rem;font-size:.95rem}
input[type=number]{width:7rem;font:inherit;padding:.3rem .5rem;border:1px solid var(--pricing-card-border);border-radius:calc(var(--pricing-radius) / 2);background:#fff;color:inherit}
.button{display:inline-flex;justify-content:center;align-items:center;gap:.5rem;width:100%;padding:.7rem 1rem;font:inherit;font-weight:600;border:0;border-radius:var(--pricing-radius);background:var(--pricing-primary);color:var(--pricing-button-text);cursor:pointer;text-decoration:none;transition:background .15s}
.button:hover{background:var(--pricing-hover)}
.button[aria-disabled="true"]{opacity:.65;cursor:not-allowed}
.button[aria-busy="true"]{cursor:progress}
.button[aria-busy="true"]::before{content:"";width:1em;height:1em;border-radius:50%;border:2px solid currentColor;border-right-color:transparent;animation:spin .8s linear infinite}
@keyframes spin{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){.button[aria-busy="true"]::before{animation:none}.switch,.switch::after{transition:none}}
.switch:focus-visible,.button:focus-visible,input:focus-visible,.retry:focus-visible{outline:3px solid var(--pricing-primary);outline-offset:2px}
.error{margin:0;color:#B91C1C;font-size:.9rem}
.error:empty{display:none}
.custom-card .pick{display:flex;flex-direction:column;gap:.5rem;flex:1}
.custom-card .choice{display:flex;flex-direction:column;gap:.35rem}
.custom-card .choice>label{display:flex;gap:.5rem;align-items:baseline;font-size:.95rem}
.custom-card .choice .each{display:block;color:var(--pricing-muted);font-size:.85rem}
.custom-card .choice label.count{padding-left:1.5rem}
.message{padding:1.5rem;text-align:center;color:var(--pricing-muted);font-size:.95rem;display:flex;flex-direction:column;align-items:center;gap:.75rem}
.retry{font:inherit;padding:.4rem 1rem;border-radius:6px;border:1px solid #D1D5DB;background:#fff;color:#111827;cursor:pointer}
`;
