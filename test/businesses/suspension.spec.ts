/**
 * Business suspension (issue 19, B12) at the service: the operator's use cases, the read model
 * (status, suspended_at, updated_at), the authentication cache (at once here, within its TTL in
 * another process), the input rules, the actor, a rebuild, and a table made before the column.
 */
import { BUSINESS_STREAM, BusinessService, DomainError, businessesProjector, operatorActor } from '@lib/businesses';
import { ProjectionRunner, rebuildProjection, verifyProjection } from '@lib/projections';
import { STORE_KINDS, openTestStore } from '../support/fixtures';
import { rejectedBy } from '../support/thrown';
import { businessesPerSuite, twoReplicas } from './support';

const ada = operatorActor('ada');

describe.each(STORE_KINDS)('business suspension on %s', (kind) => {
  const suite = businessesPerSuite(kind, 'bizsusp');

  it('suspends and reinstates: status, suspended_at and updated_at in the answer and the read model; the operator is the actor', async () => {
    const created = await suite.service.createBusiness({ name: 'Shady', simulated: false });
    const id = created.business.id;
    const suspended = await suite.service.suspendBusiness(id, { reason: '  Chargebacks over 2 %  ', actor: ada, requestId: 'req_s' });
    expect(suspended).toEqual({ ...created.business, status: 'suspended', suspended_at: expect.stringMatching(/Z$/), updated_at: expect.stringMatching(/Z$/) });
    expect(Date.parse(suspended.suspended_at!)).toBeGreaterThanOrEqual(Date.parse(created.business.created_at));
    expect(Date.parse(suspended.updated_at)).toBeGreaterThan(Date.parse(created.business.updated_at));
    expect(await suite.service.getBusiness(id)).toEqual(suspended); // read your writes
    expect((await suite.service.authenticate(created.secret_key))?.business).toEqual(suspended);

    const reinstated = await suite.service.reinstateBusiness(id, { actor: operatorActor('bob') });
    expect(reinstated).toEqual({ ...created.business, status: 'active', suspended_at: null, updated_at: expect.stringMatching(/Z$/) });
    expect(Date.parse(reinstated.updated_at)).toBeGreaterThan(Date.parse(suspended.updated_at));
    expect(await suite.service.getBusiness(id)).toEqual(reinstated);

    const events = await suite.store.readStream(BUSINESS_STREAM.stream(id));
    expect(events.slice(-2)).toMatchObject([
      {
        type: 'BusinessSuspended',
        data: { business_id: id, suspended_at: suspended.suspended_at, reason: 'Chargebacks over 2 %' },
        metadata: { actor: { kind: 'operator', id: 'ada' }, requestId: 'req_s' },
      },
      { type: 'BusinessReinstated', data: { business_id: id }, metadata: { actor: { kind: 'operator', id: 'bob' } } },
    ]);
  });

  it('refuses: a suspended business again, an active one reinstated, an unknown business, a missing or overlong reason, a nameless operator', async () => {
    const { business } = await suite.service.createBusiness({ name: 'Twice', simulated: true });
    expect(await rejectedBy(DomainError, suite.service.reinstateBusiness(business.id, { actor: ada }))).toMatchObject({ code: 'invalid_request', status: 400, message: expect.stringMatching(/not suspended/) });
    await suite.service.suspendBusiness(business.id, { reason: 'Review', actor: ada });
    expect(await rejectedBy(DomainError, suite.service.suspendBusiness(business.id, { reason: 'Again', actor: ada }))).toMatchObject({ code: 'business_suspended', status: 403 });
    for (const id of ['biz_doesnotexist', 'nonsense']) {
      expect(await rejectedBy(DomainError, suite.service.suspendBusiness(id, { reason: 'x', actor: ada }))).toMatchObject({ code: 'not_found', message: `No business ${id}.` });
      expect(await rejectedBy(DomainError, suite.service.reinstateBusiness(id, { actor: ada }))).toMatchObject({ code: 'not_found' });
    }
    const other = await suite.service.createBusiness({ name: 'Other', simulated: true });
    expect(await rejectedBy(DomainError, suite.service.suspendBusiness(other.business.id, { reason: '   ', actor: ada }))).toMatchObject({ code: 'invalid_request', field: 'reason', message: 'reason is required.' });
    expect(await rejectedBy(DomainError, suite.service.suspendBusiness(other.business.id, { reason: undefined as never, actor: ada }))).toMatchObject({ code: 'invalid_request', field: 'reason' });
    expect(await rejectedBy(DomainError, suite.service.suspendBusiness(other.business.id, { reason: 'x'.repeat(501), actor: ada }))).toMatchObject({
      code: 'invalid_request',
      field: 'reason',
      message: 'reason is at most 500 characters.',
    });
    expect((await suite.service.suspendBusiness(other.business.id, { reason: 'x'.repeat(500), actor: ada })).status).toBe('suspended');
    expect(() => operatorActor('  ')).toThrow(DomainError);
    expect(() => operatorActor('x'.repeat(101))).toThrow(/operator/);
    expect(operatorActor(' ada ')).toEqual({ kind: 'operator', id: 'ada', name: null });
  });

  it('authentication sees a suspension at once in this process, and within the cache TTL (2 s) in another', async () => {
    const { here, elsewhere, advance } = twoReplicas(suite);
    const created = await here.createBusiness({ name: 'Cached', simulated: false });
    expect((await here.authenticate(created.secret_key))?.business.status).toBe('active');
    expect((await here.authenticate(created.publishable_key))?.business.status).toBe('active');
    expect((await elsewhere.authenticate(created.secret_key))?.business.status).toBe('active'); // cached there

    await here.suspendBusiness(created.business.id, { reason: 'Fraud review', actor: ada });
    expect((await here.authenticate(created.secret_key))?.business).toMatchObject({ status: 'suspended', suspended_at: expect.stringMatching(/Z$/) });
    expect((await here.authenticate(created.publishable_key))?.business.status).toBe('suspended');
    expect((await elsewhere.authenticate(created.secret_key))?.business.status).toBe('active'); // allowed to lag...
    advance(2001);
    expect((await elsewhere.authenticate(created.secret_key))?.business.status).toBe('suspended'); // ...by the TTL at most

    await here.reinstateBusiness(created.business.id, { actor: ada });
    expect((await here.authenticate(created.secret_key))?.business).toMatchObject({ status: 'active', suspended_at: null });
    advance(2001);
    expect((await elsewhere.authenticate(created.secret_key))?.business.status).toBe('active');
  });

  it('a rebuild gives the same rows, also with suspensions in later batches than their business; verify sees no difference', async () => {
    const a = await suite.service.createBusiness({ name: 'Rebuilt A', simulated: false });
    const b = await suite.service.createBusiness({ name: 'Rebuilt B', simulated: true });
    await suite.service.suspendBusiness(a.business.id, { reason: 'r', actor: ada });
    await suite.service.suspendBusiness(b.business.id, { reason: 'r', actor: ada });
    await suite.service.reinstateBusiness(b.business.id, { actor: ada });
    const snapshot = async () => (await suite.db.query(`SELECT * FROM businesses ORDER BY id`)).rows;
    const before = await snapshot();
    expect(before.find((r) => r.id === a.business.id)).toMatchObject({ status: 'suspended', suspended_at: expect.any(Date) });
    expect(before.find((r) => r.id === b.business.id)).toMatchObject({ status: 'active', suspended_at: null });
    expect((await verifyProjection(suite.store, suite.db, businessesProjector)).differences).toEqual([]);
    await suite.runner.stop();
    try {
      for (const batch of [2, 1000]) {
        await rebuildProjection(suite.store, suite.db, businessesProjector, { batchSize: batch });
        expect(await snapshot()).toEqual(before);
      }
    } finally {
      suite.runner = new ProjectionRunner(suite.store, suite.db, [businessesProjector]);
      await suite.runner.start();
      suite.service = new BusinessService(suite.store, suite.db, suite.runner);
    }
  });
});

describe('a businesses table made before suspensions', () => {
  it('gets its suspended_at column when the projection starts, and suspensions project into it', async () => {
    const opened = await openTestStore('postgres', 'bizsuspold', { pollIntervalMs: 20 });
    try {
      await opened.db.exec(`CREATE TABLE businesses (
        id text PRIMARY KEY, name text NOT NULL, simulated boolean NOT NULL, status text NOT NULL DEFAULT 'active',
        website text, support_email text, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`);
      const runner = new ProjectionRunner(opened.store, opened.db, [businessesProjector]);
      await runner.start();
      try {
        const service = new BusinessService(opened.store, opened.db, runner);
        const { business } = await service.createBusiness({ name: 'Old table', simulated: false });
        const suspended = await service.suspendBusiness(business.id, { reason: 'r', actor: ada });
        expect(await service.getBusiness(business.id)).toEqual(suspended);
        expect(suspended.status).toBe('suspended');
      } finally {
        await runner.stop();
      }
    } finally {
      await opened.cleanup();
    }
  });
});
