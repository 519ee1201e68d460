import type { RevocationEntry } from '@arbiter/auth';
import type { UiManifest, UiManifestEntry, UiRoutingManifest } from '@arbiter/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { JSONWebKeySet, JWK } from 'jose';
import type { UserPermissions } from './auth.service';
import type { KeyRotation } from './key-store';
import type { LogoutResult, TokenPair } from './token.service';

/** Response classes of the auth endpoints (the `result` of their hosted envelopes, and the plain JWKS). */

const SERVICES = ['control-plane', 'decisions', 'identity'] as const;

/** Login and refresh: the spec's `{ AccessToken, RefreshToken }` and what a client needs to schedule a refresh. */
export class TokenPairView implements TokenPair {
  @ApiProperty({
    description: 'The signed JWT to send as `Authorization: Bearer …`.',
    example: 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImtleS0xIiwidHlwIjoiSldUIn0.eyJzdWIiOiIwYjZmIn0.c2lnbmF0dXJl',
  })
  AccessToken!: string;

  @ApiProperty({
    description: 'Opaque, single use: the refresh endpoint rotates it (a second use revokes the session).',
    example: 'q3Jb0mB2k1N8Yx7vR4tL9pW6sD5fG2hJ0kL3zX8cV1E',
  })
  RefreshToken!: string;

  @ApiProperty({ enum: ['Bearer'], example: 'Bearer' })
  TokenType!: 'Bearer';

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Seconds until the access token expires.',
    example: 900,
  })
  ExpiresIn!: number;

  @ApiProperty({
    format: 'date-time',
    description: 'When the refresh token expires.',
    example: '2025-01-22T09:30:00.000Z',
  })
  RefreshTokenExpiresAt!: string;
}

export class LogoutView implements LogoutResult {
  @ApiProperty({
    type: [String],
    description: 'Ids (`jti`) of the access tokens revoked: the presented one, then the rest of its session.',
    example: ['3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f'],
  })
  revoked!: string[];
}

export class UserPermissionsView implements UserPermissions {
  @ApiProperty({ format: 'uuid', example: '0b6f4c1e-8d1a-4f3e-9a51-2f4b7c9d0e12' })
  userId!: string;

  @ApiProperty({ example: 'alice' })
  userName!: string;

  @ApiProperty({ example: 'default' })
  tenantId!: string;

  @ApiProperty({ type: [String], description: 'Role names', example: ['Approver'] })
  roles!: string[];

  @ApiProperty({
    type: [String],
    description: "The union of the permissions of the user's roles",
    example: ['Users.View', 'cp.approver'],
  })
  permissions!: string[];
}

export class UiManifestEntryView implements UiManifestEntry {
  @ApiProperty({ description: 'Stable id', example: 'decision-tables' })
  id!: string;

  @ApiProperty({ enum: SERVICES, description: 'Owning service' })
  service!: UiManifestEntry['service'];

  @ApiProperty({ example: 'Decision tables' })
  title!: string;

  @ApiProperty({ description: 'Client route', example: '/decision-tables' })
  route!: string;

  @ApiProperty({
    description: 'API base the screen talks to (relative to the service)',
    example: '/api/v1/decision-tables',
  })
  api!: string;

  @ApiPropertyOptional()
  icon?: string;

  @ApiPropertyOptional({ description: 'Permission needed to see the entry' })
  requiredPermission?: string;

  @ApiPropertyOptional({
    enum: ['cp.admin', 'cp.approver', 'cp.viewer'],
    description: 'Control-plane policy needed instead',
  })
  requiredPolicy?: UiManifestEntry['requiredPolicy'];

  @ApiProperty({ type: 'integer' })
  order!: number;
}

/** The entries of the UI the caller may see. */
export class UiManifestView implements UiManifest {
  @ApiProperty({ type: 'integer', example: 1 })
  version!: number;

  @ApiProperty({ format: 'date-time' })
  generatedAt!: string;

  @ApiProperty({ type: [UiManifestEntryView] })
  entries!: UiManifestEntryView[];
}

export class UiRouteView {
  @ApiProperty({ example: 'decision-tables' })
  id!: string;

  @ApiProperty({ example: '/decision-tables' })
  route!: string;

  @ApiProperty({ enum: SERVICES })
  service!: UiManifestEntry['service'];
}

/** `minimalFor=routing`: only what a client router needs. */
export class UiRoutingManifestView implements UiRoutingManifest {
  @ApiProperty({ type: 'integer', example: 1 })
  version!: number;

  @ApiProperty({ type: [UiRouteView] })
  routes!: UiRouteView[];
}

export class RevocationEntryView implements RevocationEntry {
  @ApiProperty({ description: 'Id (`jti`) of the revoked access token' })
  jti!: string;

  @ApiProperty({ format: 'date-time', description: 'When the token expires (then the entry is dropped)' })
  expiresAt!: string;
}

export class RevocationListView {
  @ApiProperty({ type: [RevocationEntryView] })
  items!: RevocationEntryView[];
}

export class KeyRotationView implements KeyRotation {
  @ApiProperty({ description: 'Id of the new signing key' })
  kid!: string;

  @ApiProperty({ description: 'Id of the key it replaces (still published while tokens it signed live)' })
  previousKid!: string;

  @ApiProperty({
    description:
      'When the new key starts signing on every replica (`IdentityAuth:KeyPublishDelaySeconds` after the rotation); it is in the JWKS from the rotation on, and the replaced key signs until then',
    format: 'date-time',
  })
  activatesAt!: string;
}

/** A public key (RFC 7517), as JOSE libraries read it. */
export class JsonWebKeyView implements JWK {
  @ApiProperty({ description: 'Key type', example: 'RSA' })
  kty!: string;

  @ApiProperty({ description: 'Key id: the `kid` of the tokens it verifies' })
  kid!: string;

  @ApiProperty({ enum: ['RS256'], example: 'RS256' })
  alg!: string;

  @ApiProperty({ enum: ['sig'], example: 'sig' })
  use!: string;

  @ApiPropertyOptional({ description: 'RSA modulus (base64url)' })
  n?: string;

  @ApiPropertyOptional({ description: 'RSA exponent (base64url)', example: 'AQAB' })
  e?: string;

  @ApiPropertyOptional({ description: 'EC curve' })
  crv?: string;

  @ApiPropertyOptional({ description: 'EC x coordinate (base64url)' })
  x?: string;

  @ApiPropertyOptional({ description: 'EC y coordinate (base64url)' })
  y?: string;

  @ApiPropertyOptional({ description: 'The tenant whose tokens the key signs (per-tenant keys only)' })
  tenant_id?: string;
}

/** The JSON web key set (plain, not enveloped: JOSE clients read it as is). */
export class JsonWebKeySetView implements JSONWebKeySet {
  @ApiProperty({ type: [JsonWebKeyView] })
  keys!: JsonWebKeyView[];
}
