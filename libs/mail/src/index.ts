export * from './mailer';
export * from './render';
export * from './smtp-mailer';
export * from './dev-mailbox';
export * from './unavailable-mailer';
export * from './create-mailer';
export * from './mail.module';
