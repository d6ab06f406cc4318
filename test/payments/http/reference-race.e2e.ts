import { Client, businessWithKey, replicasPerSuite } from '../../support/fixtures';

/**
 * Issue #17 point 8: two API replicas on one PostgreSQL; concurrent POST /payments with one
 * reference, amount and currency, alternating replicas. A request that finds the reference held
 * answers with the holder: it must first wait until the read models have that payment's last
 * event (it was created by another request, maybe on the other replica), else its answer, read
 * from the read model, was 404 not_found for a payment that exists. §8.9 / decision 0011: every
 * answer is 201 with the same payment.
 */
describe('the same reference on two API replicas at once (#17.8)', () => {
  // one replica runs the projections (all), the other only waits on their checkpoints (api)
  const suite = replicasPerSuite('refrace', [{}, { ROLE: 'api' }]);

  it('20 concurrent creates, alternating replicas: every answer 201 with the same payment, readable at once on both', async () => {
    const { secret_key } = await businessWithKey(suite.replicas[0], true);
    const clients = suite.replicas.map((replica) => new Client(replica, secret_key));
    for (let round = 0; round < 3; round++) {
      const body = { amount: 4_200 + round, currency: 'USD', reference: `race-${round}` };
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => clients[i % 2].post('/payments', body)));
      const seen = answers.map((a) => ({ status: a.status, code: a.body?.error?.code ?? null, id: a.body?.data?.id ?? null }));
      expect(seen.filter((a) => a.status !== 201)).toEqual([]);
      const ids = new Set(seen.map((a) => a.id));
      expect(ids.size).toBe(1);
      const [id] = [...ids];
      expect(id).toMatch(/^pmt_/);
      for (const answer of answers) expect(answer.body.data).toMatchObject({ id, amount: body.amount, currency: 'USD', reference: body.reference, status: 'pending' });
      for (const client of clients) expect((await client.get(`/payments/${id}`)).status).toBe(200);
    }
  });
});
