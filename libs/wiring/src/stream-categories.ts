import { ACCOUNT_STREAM_CATEGORIES } from '@lib/accounts';
import { BUSINESS_STREAM_CATEGORIES } from '@lib/businesses';
import { CUSTOMER_STREAM_CATEGORIES } from '@lib/customers';
import { StreamCategory, assertDistinctCategories } from '@lib/eventstore';
import { LINK_STREAM_CATEGORIES } from '@lib/links';
import { PAYMENT_STREAM_CATEGORIES } from '@lib/payments';
import { OPERATION_STREAM_CATEGORIES } from '@lib/operations';
import { WALLET_STREAM_CATEGORIES } from '@lib/wallets';
import { WEBHOOK_STREAM_CATEGORIES } from '@lib/webhooks';

/**
 * Every stream category a capability writes, declared by each capability beside its events
 * (`streamCategory`). No category's `<name>-` may start another's: checked here, when the
 * composition root loads, and by the tests. A capability adds its list here.
 */
export const ALL_STREAM_CATEGORIES: readonly StreamCategory[] = [...BUSINESS_STREAM_CATEGORIES, ...PAYMENT_STREAM_CATEGORIES, ...WALLET_STREAM_CATEGORIES, ...WEBHOOK_STREAM_CATEGORIES, ...OPERATION_STREAM_CATEGORIES, ...CUSTOMER_STREAM_CATEGORIES, ...LINK_STREAM_CATEGORIES, ...ACCOUNT_STREAM_CATEGORIES];

assertDistinctCategories(ALL_STREAM_CATEGORIES);
