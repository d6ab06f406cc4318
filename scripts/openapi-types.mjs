// Reads an OpenAPI document (JSON) on standard input and writes its TypeScript types on standard output
// (openapi-typescript, with a named type per component: `Payment` for components.schemas.Payment). A
// separate ES module process: openapi-typescript's dependencies are ES modules, which Jest's CommonJS
// runtime cannot require. Used by scripts/generate-client.ts.
import { Buffer } from 'node:buffer';
import process from 'node:process';
import openapiTS, { astToString } from 'openapi-typescript';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const ast = await openapiTS(JSON.parse(Buffer.concat(chunks).toString('utf8')), { silent: true, rootTypes: true, rootTypesNoSchemaPrefix: true });
process.stdout.write(astToString(ast));
