import { Body, Controller, Param, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Business } from '@lib/businesses';
import {
  BlockCustomerCommand,
  CreateCustomerCommand,
  CreateCustomerRequest,
  GetCustomerQuery,
  ListCustomersQuery,
  UnblockCustomerCommand,
  UpdateCustomerCommand,
  UpdateCustomerRequest,
} from '@lib/customers';
import { CurrentBusiness, writeMeta } from '../auth/request-auth';
import { ActionRoute, ApiPage, ChangeRoute, CreateRoute, GetRoute } from '../platform/route-presets';
import { CUSTOMER_SCHEMA } from './schemas';

/**
 * Customers (spec §2, §5.4, §7; decision 0029): thin — each route sends its use case's command
 * or query (libs/customers) and answers `{data}`.
 */
/** Block and unblock: a live-mode action on one customer that answers the customer. */
const CustomerAction = (path: string, summary: string) => ActionRoute(path, { summary, data: [CUSTOMER_SCHEMA, 'The customer.'], errors: ['not_found'], access: ['customers', 'write'], live: true });

@ApiTags('customers')
@Controller('customers')
export class CustomersController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @CreateRoute(undefined, { summary: 'Create a customer', description: 'One customer per e-mail address (case-insensitive): an address another customer has — including one known only because a payment named it — is 409 `customer_exists`.', data: [CUSTOMER_SCHEMA, 'The customer.'], errors: ['customer_exists'], access: ['customers', 'write'] })
  async create(@CurrentBusiness() business: Business, @Body() body: CreateCustomerRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new CreateCustomerCommand(business, body, writeMeta(request))) };
  }

  @ApiQuery({ name: 'email', required: false, description: 'The customer with this address (case-insensitive).' })
  @ApiQuery({ name: 'blocked', required: false, description: 'true or false.' })
  @ApiPage(CUSTOMER_SCHEMA, 'A page of customers.', 'next_cursor of the previous page (bound to this list and its filters).')
  @GetRoute(undefined, { summary: 'List customers, newest first (filters: email, blocked)', description: 'Customers created here and customers known from the e-mail of a payment.', access: ['customers', 'read'] })
  list(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>) {
    return this.queries.execute(new ListCustomersQuery(business.id, query));
  }

  @GetRoute(':id', { summary: 'Retrieve a customer with its stats', data: [CUSTOMER_SCHEMA, 'The customer.'], errors: ['not_found'], access: ['customers', 'read'] })
  async get(@CurrentBusiness() business: Business, @Param('id') id: string) {
    return { data: await this.queries.execute(new GetCustomerQuery(business.id, id)) };
  }

  @ChangeRoute(':id', { summary: "Change a customer's name, e-mail or note (send only what changes)", data: [CUSTOMER_SCHEMA, 'The customer.'], errors: ['not_found', 'customer_exists'], access: ['customers', 'write'] })
  async update(@CurrentBusiness() business: Business, @Param('id') id: string, @Body() body: UpdateCustomerRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new UpdateCustomerCommand(business.id, id, body, writeMeta(request))) };
  }

  @CustomerAction(':id/block', 'Block a customer: its payments and checkouts are refused (403 customer_blocked)')
  async block(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new BlockCustomerCommand(business.id, id, writeMeta(request))) };
  }

  @CustomerAction(':id/unblock', 'Unblock a customer')
  async unblock(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new UnblockCustomerCommand(business.id, id, writeMeta(request))) };
  }
}
