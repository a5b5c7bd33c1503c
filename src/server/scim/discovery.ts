import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, MAX_RESULTS, RESOURCE_TYPE_SCHEMA, SCHEMA_SCHEMA, SERVICE_PROVIDER_CONFIG_SCHEMA, USER_SCHEMA } from './schemas'

/**
 * The three discovery documents (RFC 7644 section 4), saying exactly what the service supports:
 * PATCH yes, bulk no, filter yes (at most 200 results), sort no, ETag no, change password no;
 * Users and Groups, and the attributes of each that the service keeps.
 */

export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: [SERVICE_PROVIDER_CONFIG_SCHEMA],
    documentationUri: `${new URL(baseUrl).origin}/api/docs`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: "An API key or a client-credentials access token of a service application holding the 'scim' scope",
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
  }
}

export function resourceTypes(baseUrl: string) {
  return [
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'An account',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_USER_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'One of the four roles (ADMIN, DEVELOPER, MODERATOR, CLIENT); its members are the accounts of that role',
      schema: GROUP_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/Group` },
    },
  ]
}

type Mutability = 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly'

interface AttributeOptions {
  type?: 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime'
  multiValued?: boolean
  required?: boolean
  caseExact?: boolean
  mutability?: Mutability
  returned?: 'always' | 'never' | 'default' | 'request'
  uniqueness?: 'none' | 'server' | 'global'
  subAttributes?: SchemaAttribute[]
  referenceTypes?: string[]
  description: string
}

type SchemaAttribute = Required<Omit<AttributeOptions, 'subAttributes' | 'referenceTypes'>> &
  Pick<AttributeOptions, 'subAttributes' | 'referenceTypes'> & { name: string }

function attribute(name: string, options: AttributeOptions): SchemaAttribute {
  const {
    type = 'string',
    multiValued = false,
    required = false,
    caseExact = false,
    mutability = 'readWrite',
    returned = 'default',
    uniqueness = 'none',
    ...rest
  } = options
  return { name, type, multiValued, required, caseExact, mutability, returned, uniqueness, ...rest }
}

const valueOf = (description: string, mutability: Mutability = 'readWrite') => [
  attribute('value', { description, mutability }),
  attribute('type', { description: 'A label: "work" is the one the service reads', mutability }),
  attribute('primary', { type: 'boolean', description: 'Whether this is the primary value', mutability }),
]

const userAttributes = [
  attribute('userName', {
    required: true,
    uniqueness: 'server',
    description: 'Kept as given, unique without regard to case; the address when no emails are given',
  }),
  attribute('name', {
    type: 'complex',
    description: "The account's name: givenName and familyName, else formatted",
    subAttributes: [
      attribute('formatted', { description: "The account's name" }),
      attribute('givenName', { description: 'Given name' }),
      attribute('familyName', { description: 'Family name' }),
    ],
  }),
  attribute('displayName', { description: "The account's name when no name is given" }),
  attribute('active', { type: 'boolean', description: 'true: the account is ACTIVE; false: INACTIVE' }),
  attribute('emails', {
    type: 'complex',
    multiValued: true,
    description: "The primary one, else the first work one, is the account's address",
    subAttributes: valueOf('An e-mail address'),
  }),
  attribute('phoneNumbers', { type: 'complex', multiValued: true, description: "The first is the account's phone", subAttributes: valueOf('A phone number') }),
  attribute('roles', { type: 'complex', multiValued: true, mutability: 'readOnly', description: "The account's role", subAttributes: valueOf('A role', 'readOnly') }),
  attribute('groups', {
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    description: "The group of the account's role",
    subAttributes: [
      attribute('value', { mutability: 'readOnly', description: 'The group id' }),
      attribute('$ref', { type: 'reference', referenceTypes: ['Group'], mutability: 'readOnly', description: 'The group' }),
      attribute('display', { mutability: 'readOnly', description: 'The group name' }),
    ],
  }),
  attribute('password', { mutability: 'writeOnly', returned: 'never', description: 'Ignored: never stored' }),
]

const groupAttributes = [
  attribute('displayName', { required: true, mutability: 'readOnly', description: 'ADMIN, DEVELOPER, MODERATOR or CLIENT' }),
  attribute('members', {
    type: 'complex',
    multiValued: true,
    description: 'The accounts of the role',
    subAttributes: [
      attribute('value', { mutability: 'immutable', description: 'The account id' }),
      attribute('$ref', { type: 'reference', referenceTypes: ['User'], mutability: 'immutable', description: 'The account' }),
      attribute('display', { mutability: 'readOnly', description: "The account's name" }),
    ],
  }),
]

export function schemaDocuments(baseUrl: string) {
  const schema = (id: string, name: string, description: string, attributes: unknown[]) => ({
    schemas: [SCHEMA_SCHEMA],
    id,
    name,
    description,
    attributes,
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${id}` },
  })
  return [
    schema(USER_SCHEMA, 'User', 'An account', userAttributes),
    schema(GROUP_SCHEMA, 'Group', 'A role', groupAttributes),
    schema(ENTERPRISE_USER_SCHEMA, 'EnterpriseUser', 'Accepted and ignored', []),
  ]
}
