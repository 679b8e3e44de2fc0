export type Role = 'ADMIN' | 'USER';
export type DayName = 'MONDAY' | 'TUESDAY' | 'WEDNESDAY' | 'THURSDAY' | 'FRIDAY' | 'SATURDAY' | 'SUNDAY';
export const DAYS: DayName[] = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];

export interface UnlockBetween { start: string; end: string; timezone: string; days: DayName[]; exceptions?: string[] }
export interface TimeRequirement { start: string; end: string; timezone: string; days: DayName[] }
export interface LocationRequirement { latitude: number; longitude: number; enabled?: boolean; radius?: number; accuracy?: number }

export interface Lock {
  id: string;
  name: string;
  colour: string | null;
  role: Role;
  favourite: boolean;
  start: number | null;
  end: number | null;
  unlockTime?: number;
  settings: {
    unlockTime: number;
    permittedAddresses: string[];
    defaultName: string;
    usageRequirements: { time?: TimeRequirement[]; location?: LocationRequirement };
    unlockBetweenWindow: UnlockBetween | null;
    tiles?: string[];
    hidden?: boolean;
  };
  state: { connected: boolean; locked?: boolean };
}

export interface Site { id: string; name: string }
/** A lock's user; `pending`: the share is held until they verify their email (no access yet); `orphan`: invited, no account yet. */
export interface Member { userId: string; email: string | null; displayName: string | null; role: Role; start: number | null; end: number | null; orphan: boolean; pending?: boolean }
export interface Account { email: string | null; displayName: string | null; emailVerified: boolean }
export interface LockLogEntry { timestamp: number; type: string; user: string | null; email?: string | null; displayName?: string | null; message: string; rejected?: boolean }
export interface UserLogEntry { deviceId: string; timestamp: number; type: string; issuer: { userId: string | null }; subject?: { userId: string; email: string | null }; rejected: boolean }
