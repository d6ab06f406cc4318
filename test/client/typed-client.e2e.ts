import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { clientTypes } from '../../scripts/generate-client';
import { appPerSuite, businessWithKey, startTestApi } from '../support/fixtures';
import { runIntegrator } from './integrator';

const ROOT = join(__dirname, '..', '..');
const PROGRAM = join(__dirname, 'integrator.ts');
const TYPES_IMPORT = "'../../libs/client/src/openapi-types'";

/** Type-checks `files` (name → source) under --strict, as an integrator's project would; returns the diagnostics as text. */
function typeCheck(dir: string, files: Record<string, string>): string[] {
  for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
  const program = ts.createProgram(
    Object.keys(files).map((name) => join(dir, name)),
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.Node16,
      moduleResolution: ts.ModuleResolutionKind.Node16,
      lib: ['lib.es2023.d.ts'],
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules', '@types')],
      skipLibCheck: true,
    },
  );
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

/**
 * Issue 18.4: types generated from the served document (openapi-typescript) are enough to write
 * an integration with openapi-fetch that type-checks under --strict, and that program works
 * against the real app.
 */
describe('an integrator program on types generated from the served document', () => {
  // the integrator's project: a folder with node_modules and the types generated from the served document
  const suite = appPerSuite(
    () => startTestApi(),
    async (api) => {
      const secretKey = (await businessWithKey(api, true, 'Integrator')).secret_key;
      const dir = mkdtempSync(join(tmpdir(), 'integrator-'));
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
      const document = (await (await fetch(`${api.base}/openapi.json`)).json()) as object;
      writeFileSync(join(dir, 'openapi-types.ts'), await clientTypes(document));
      return { secretKey, dir };
    },
  );
  afterAll(() => {
    const { dir } = suite as { dir?: string };
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('type-checks under --strict against the generated types', () => {
    const source = readFileSync(PROGRAM, 'utf8');
    expect(source).toContain(TYPES_IMPORT);
    expect(typeCheck(suite.dir, { 'integrator.ts': source.replace(TYPES_IMPORT, "'./openapi-types'") })).toEqual([]);
  });

  it('refuses a program that gets the contract wrong', () => {
    const wrong = [
      "import createClient from 'openapi-fetch';",
      "import type { paths } from './openapi-types';",
      'export async function wrong(): Promise<void> {',
      "  const api = createClient<paths>({ baseUrl: 'http://localhost/api/v1' });",
      "  await api.POST('/payments', { body: { amount: '25', currency: 'USD' } });", // amount is an integer
      "  await api.POST('/payments', { body: { amount: 25, currency: 'USD', colour: 'red' } });", // no such field
      "  await api.POST('/checkouts', { body: { payment_code: 'x' } });", // no Idempotency-Key header
      "  const { data } = await api.GET('/payments/{id}', { params: { path: { id: 'pmt_1' } } });",
      '  const status: "paid" = data!.data.status;', // not a payment status
      '  void status;',
      '}',
      '',
    ].join('\n');
    const problems = typeCheck(suite.dir, { 'wrong.ts': wrong });
    expect(problems.map((p) => p.split(' ')[0])).toEqual(expect.arrayContaining(['wrong.ts:5', 'wrong.ts:6', 'wrong.ts:7', 'wrong.ts:9']));
  });

  it('runs against the app: a payment, a checkout with an Idempotency-Key, a webhook secret, pages of payments', async () => {
    const result = await runIntegrator(suite.api.base, suite.secretKey, '1042', randomUUID());
    expect(result.payment).toMatchObject({ kind: 'payment', status: 'pending', amount: 2500, reference: 'order-1042', metadata: { order_id: '1042', channel: 'web' } });
    expect(result.payment.customer_id).toMatch(/^cst_/);
    expect(result.checkout).toMatchObject({ kind: 'checkout', payment_id: result.payment.id, status: 'open' });
    expect(result.replayed).toBe(true);
    expect(result.webhookId).toMatch(/^whk_/);
    expect(result.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(result.refused).toBe('not_found');
    expect(result.pagedIds).toContain(result.payment.id);

    // more payments than a page: the cursor walks them all, newest first, each once
    for (const order of ['1043', '1044', '1045']) await runIntegrator(suite.api.base, suite.secretKey, order, randomUUID());
    const last = await runIntegrator(suite.api.base, suite.secretKey, '1046', randomUUID());
    expect(last.pages).toBeGreaterThanOrEqual(3);
    expect(new Set(last.pagedIds).size).toBe(last.pagedIds.length);
    expect(last.pagedIds[0]).toBe(last.payment.id);
  });
});
