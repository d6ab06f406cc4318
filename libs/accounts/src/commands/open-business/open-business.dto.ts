import { NewBusinessName, NewBusinessReferralCode, NewBusinessSimulated } from '../account-input';

/** POST /businesses (decision 0039): a signed-in person creates another business and becomes its owner. */
export class OpenBusinessRequest {
  @NewBusinessName('name', 'The business’s name.')
  name!: string;

  @NewBusinessSimulated('A simulated business (test keys, no chain watched). Default false: a live business, as at sign-up.')
  simulated?: boolean;

  @NewBusinessReferralCode('The referral code of the business that invited this one (decision 0035); case is folded. An unknown code is 400 invalid_request.')
  referral_code?: string;
}
