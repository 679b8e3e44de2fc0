import { Type } from '@sinclair/typebox';
import { VERIFICATION_METHODS, type VerificationMethod } from './delivery.js';

const EphemeralKey = Type.String({ minLength: 1, maxLength: 1024, description: 'Ed25519 public key: Base64 of the raw 32 bytes or of the DER SubjectPublicKeyInfo (RFC 8410)' });

export const CertificateRequest = Type.Object({ ephemeralKey: EphemeralKey });

export const VerifyQuery = Type.Object({
  method: Type.Optional(Type.Union(VERIFICATION_METHODS.map((m) => Type.Literal(m)), { description: 'channel of the code; chosen from the account when absent' })),
});

/** The channel the code went through; the SDK's model requires it (BasicRegisterEphemeralKeyWithSecondaryAuthenticationResponse). */
export const VerificationStarted = Type.Object({ method: Type.Unsafe<VerificationMethod>({ type: 'string', enum: [...VERIFICATION_METHODS] }) });

export const CheckRequest = Type.Object({
  verificationSignature: Type.String({ minLength: 1, maxLength: 256, description: 'Base64 Ed25519 signature of the code (UTF-8) by the pending ephemeral key' }),
});

export const CertificateResponse = Type.Object({
  certificateChain: Type.Array(Type.String(), { description: '[leaf, intermediate, root], Base64 DER' }),
  userId: Type.String(),
});
