-- GET /search (decision 0031): the trigram index of the search projection (pg_trgm ships with PostgreSQL and with PGlite)
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
