import { Body, Controller, Get, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
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
import { LiveModeAction, RequiresPermission } from '../auth/auth.decorators';
import { CurrentBusiness, writeMeta } from '../auth/request-auth';
import { ApiErrors, dataOf } from '../platform/openapi';
import { ApiPage, PostAction } from '../platform/route-presets';
import { CUSTOMER_SCHEMA } from './schemas';

/**
 * Customers (spec §2, §5.4, §7; decision 0029): thin — each route sends its use case's command
 * or query (libs/customers) and answers `{data}`.
 */
@ApiTags('customers')
@Controller('customers')
export class CustomersController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiOperation({ summary: 'Create a customer', description: 'One customer per e-mail address (case-insensitive): an address another customer has — including one known only because a payment named it — is 409 `customer_exists`.' })
  @ApiCreatedResponse({ description: 'The customer.', schema: dataOf(CUSTOMER_SCHEMA) })
  @ApiErrors('customer_exists')
  @RequiresPermission('customers', 'write')
  @Post()
  async create(@CurrentBusiness() business: Business, @Body() body: CreateCustomerRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new CreateCustomerCommand(business, body, writeMeta(request))) };
  }

  @ApiOperation({ summary: 'List customers, newest first (filters: email, blocked)', description: 'Customers created here and customers known from the e-mail of a payment.' })
  @ApiQuery({ name: 'email', required: false, description: 'The customer with this address (case-insensitive).' })
  @ApiQuery({ name: 'blocked', required: false, description: 'true or false.' })
  @ApiPage(CUSTOMER_SCHEMA, 'A page of customers.', 'next_cursor of the previous page (bound to this list and its filters).')
  @RequiresPermission('customers', 'read')
  @Get()
  list(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>) {
    return this.queries.execute(new ListCustomersQuery(business.id, query));
  }

  @ApiOperation({ summary: 'Retrieve a customer with its stats' })
  @ApiOkResponse({ description: 'The customer.', schema: dataOf(CUSTOMER_SCHEMA) })
  @ApiErrors('not_found')
  @RequiresPermission('customers', 'read')
  @Get(':id')
  async get(@CurrentBusiness() business: Business, @Param('id') id: string) {
    return { data: await this.queries.execute(new GetCustomerQuery(business.id, id)) };
  }

  @ApiOperation({ summary: "Change a customer's name, e-mail or note (send only what changes)" })
  @ApiOkResponse({ description: 'The customer.', schema: dataOf(CUSTOMER_SCHEMA) })
  @ApiErrors('not_found', 'customer_exists')
  @RequiresPermission('customers', 'write')
  @Patch(':id')
  async update(@CurrentBusiness() business: Business, @Param('id') id: string, @Body() body: UpdateCustomerRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new UpdateCustomerCommand(business.id, id, body, writeMeta(request))) };
  }

  @ApiOperation({ summary: 'Block a customer: its payments and checkouts are refused (403 customer_blocked)' })
  @ApiOkResponse({ description: 'The customer.', schema: dataOf(CUSTOMER_SCHEMA) })
  @ApiErrors('not_found')
  @RequiresPermission('customers', 'write')
  @LiveModeAction()
  @PostAction(':id/block')
  async block(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new BlockCustomerCommand(business.id, id, writeMeta(request))) };
  }

  @ApiOperation({ summary: 'Unblock a customer' })
  @ApiOkResponse({ description: 'The customer.', schema: dataOf(CUSTOMER_SCHEMA) })
  @ApiErrors('not_found')
  @RequiresPermission('customers', 'write')
  @LiveModeAction()
  @PostAction(':id/unblock')
  async unblock(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new UnblockCustomerCommand(business.id, id, writeMeta(request))) };
  }
}
