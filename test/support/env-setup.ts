/**
 * The environment every test process starts with (jest `setupFiles`). WALLET_KEK: the
 * key-encryption key of wallet secrets, which a service on a shared store (PostgreSQL) must be
 * given; a fixed test key here, so the apps, CLIs and child processes the tests start get one.
 */
process.env.WALLET_KEK ??= '6b1c0f2b7e5d4a3c9b8a7f6e5d4c3b2a19f8e7d6c5b4a3928170f6e5d4c3b2a1';
