/**
 * The schema URNs the service speaks (RFC 7643, 7644) and the attributes of the User schema and
 * its enterprise extension that a directory may send: known ones the service does not keep are
 * accepted and ignored; a name that is in neither is unknown.
 */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User'
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group'
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'
export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse'
export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'
export const SERVICE_PROVIDER_CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'
export const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType'
export const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema'

/** The most resources one list answer holds (`count` above it is a 400 `tooMany`... or capped: see list.ts). */
export const MAX_RESULTS = 200

/** Every attribute of RFC 7643's User, lower case, with its sub-attributes where it is complex. */
export const CORE_USER_ATTRIBUTES: Record<string, readonly string[]> = {
  id: [],
  externalid: [],
  meta: ['resourcetype', 'created', 'lastmodified', 'location', 'version'],
  schemas: [],
  username: [],
  name: ['formatted', 'familyname', 'givenname', 'middlename', 'honorificprefix', 'honorificsuffix'],
  displayname: [],
  nickname: [],
  profileurl: [],
  title: [],
  usertype: [],
  preferredlanguage: [],
  locale: [],
  timezone: [],
  active: [],
  password: [],
  emails: ['value', 'display', 'type', 'primary'],
  phonenumbers: ['value', 'display', 'type', 'primary'],
  ims: ['value', 'display', 'type', 'primary'],
  photos: ['value', 'display', 'type', 'primary'],
  addresses: ['formatted', 'streetaddress', 'locality', 'region', 'postalcode', 'country', 'type', 'primary'],
  groups: ['value', '$ref', 'display', 'type'],
  entitlements: ['value', 'display', 'type', 'primary'],
  roles: ['value', 'display', 'type', 'primary'],
  x509certificates: ['value', 'display', 'type', 'primary'],
}

export const ENTERPRISE_USER_ATTRIBUTES: Record<string, readonly string[]> = {
  employeenumber: [],
  costcenter: [],
  organization: [],
  division: [],
  department: [],
  manager: ['value', '$ref', 'displayname'],
}

export const CORE_GROUP_ATTRIBUTES: Record<string, readonly string[]> = {
  id: [],
  externalid: [],
  meta: ['resourcetype', 'created', 'lastmodified', 'location', 'version'],
  schemas: [],
  displayname: [],
  members: ['value', '$ref', 'display', 'type'],
}
