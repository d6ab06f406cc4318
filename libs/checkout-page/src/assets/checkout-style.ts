/**
 * The checkout page's stylesheet, served at {base}/assets/checkout.css (style-src 'self': no
 * inline style anywhere). System fonts only; colours chosen for at least 4.5:1 contrast; a
 * visible focus ring on everything that takes focus; one column that fits 320 px.
 */
export const CHECKOUT_STYLE = `
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1a1a1a; background: #f3f4f6; }
[hidden] { display: none !important; }
.banner { margin: 0; padding: .6rem 1rem; background: #fff4d6; color: #5c3b00; border-bottom: 2px solid #b7791f; text-align: center; }
.sheet { max-width: 30rem; margin: 1.5rem auto; padding: 1.25rem; background: #fff; border-radius: .75rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
@media (max-width: 480px) { .sheet { margin: 0; border-radius: 0; box-shadow: none; min-height: 100vh; } }
.summary { border-bottom: 1px solid #d1d5db; padding-bottom: .75rem; margin-bottom: .75rem; }
.merchant { margin: 0; font-weight: 600; color: #374151; }
h1 { margin: .25rem 0; font-size: 1.35rem; line-height: 1.3; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: .75rem 0 .5rem; }
h2:focus { outline: none; }
h2:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
.price { margin: .25rem 0 0; font-size: 1.5rem; font-weight: 700; }
.price .label { display: block; font-size: .85rem; font-weight: 400; color: #4b5563; }
.label { font-size: .9rem; color: #4b5563; margin: .75rem 0 .25rem; }
.muted { color: #4b5563; }
.status { margin: .5rem 0; padding: .5rem .75rem; background: #eef2ff; color: #1e3a8a; border-radius: .5rem; font-weight: 600; }
.note { padding: .5rem .75rem; background: #f9fafb; border-left: 4px solid #6b7280; }
fieldset { border: 0; padding: 0; margin: 0 0 .75rem; }
legend { font-weight: 600; margin-bottom: .25rem; }
.choice { display: inline-flex; align-items: center; gap: .4rem; margin-right: 1.25rem; padding: .4rem 0; }
.field { margin-bottom: .75rem; }
.field label, .claim label { display: block; font-weight: 600; margin-bottom: .25rem; }
.claim label input { font-weight: 400; margin-top: .25rem; }
select, input[type="text"], input[type="email"] { display: block; width: 100%; padding: .55rem .6rem; font: inherit; color: inherit; background: #fff; border: 1px solid #6b7280; border-radius: .4rem; }
input[type="radio"] { width: 1.1rem; height: 1.1rem; }
.field-error, .form-error { color: #b91c1c; margin: .25rem 0 0; font-size: .95rem; }
.field-error:empty, .form-error:empty { display: none; }
[aria-invalid="true"] { border-color: #b91c1c; border-width: 2px; }
button, .button { display: inline-block; font: inherit; font-weight: 600; padding: .6rem 1rem; border-radius: .4rem; border: 2px solid transparent; cursor: pointer; text-decoration: none; text-align: center; line-height: 1.3; }
button:disabled { opacity: .6; cursor: progress; }
.primary { background: #1d4ed8; color: #fff; }
.primary:hover { background: #1e40af; }
.secondary { background: #fff; color: #1d4ed8; border-color: #1d4ed8; }
.secondary:hover { background: #eff6ff; }
.link { background: none; border: 0; padding: .4rem 0; color: #1d4ed8; text-decoration: underline; font-weight: 600; }
.danger { color: #b91c1c; }
a { color: #1d4ed8; }
:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
button:focus-visible, .button:focus-visible, a:focus-visible { outline: 3px solid #111827; outline-offset: 2px; box-shadow: 0 0 0 5px #fff; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; margin: .75rem 0; }
.amount { font-size: 1.35rem; font-weight: 700; margin: .25rem 0; overflow-wrap: anywhere; }
.amount .muted { font-size: 1rem; font-weight: 400; }
.qr { display: block; width: 240px; height: 240px; max-width: 100%; margin: .75rem auto; image-rendering: pixelated; background: #fff; }
.address code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; word-break: break-all; }
.address code { display: block; padding: .5rem; background: #f3f4f6; border-radius: .4rem; font-size: .95rem; }
.countdown { margin: .5rem 0; }
.simulate { margin: 1rem 0; padding: .75rem; border: 2px dashed #b7791f; border-radius: .5rem; background: #fffbeb; display: flex; flex-wrap: wrap; gap: .5rem; }
.simulate .label { width: 100%; margin: 0; color: #5c3b00; font-weight: 600; }
.facts { margin: .5rem 0; }
.facts div { display: flex; justify-content: space-between; gap: 1rem; padding: .35rem 0; border-bottom: 1px solid #e5e7eb; }
.facts dt { color: #4b5563; }
.facts dd { margin: 0; font-weight: 600; text-align: right; overflow-wrap: anywhere; }
progress { width: 100%; height: 1rem; }
.claim { margin-top: 1.25rem; border-top: 1px solid #d1d5db; padding-top: .75rem; }
.claim summary { cursor: pointer; font-weight: 600; color: #1d4ed8; }
.copy-feedback { min-height: 1.5em; margin: .25rem 0 0; color: #065f46; }
.transfers { padding-left: 1.25rem; }
.foot { text-align: center; color: #4b5563; font-size: .85rem; padding: 0 1rem 1.5rem; }
`;
