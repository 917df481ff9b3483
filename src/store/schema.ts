// The row types of every table, as Kysely sees them. Times are ISO-8601 UTC strings (portable and
// ordered as text on every dialect); booleans are 0/1 integers.
import type { Generated } from 'kysely';

export interface AdminTable {
  name: string;
  password_hash: string;
  created_at: string;
}

export interface ConfigTable {
  name: string;
  value: string;
  type: string;
  description: string;
}

export interface MetaTable {
  name: string;
  value: string;
}

export interface NodeTable {
  name: string;
  uuid: string;
  last_seen: string;
}

export interface AuditTable {
  id: Generated<number>;
  date: string;
  startdate: string;
  duration: number;
  action: string;
  success: number;
  authentication: string;
  serial: string;
  token_type: string;
  container_serial: string;
  container_type: string;
  user: string;
  realm: string;
  resolver: string;
  administrator: string;
  action_detail: string;
  info: string;
  node: string;
  policies: string;
  client: string;
  user_agent: string;
  user_agent_version: string;
  log_level: string;
  clearance_level: string;
  thread_id: string;
  signature: string;
}

export interface Database {
  admin: AdminTable;
  config: ConfigTable;
  meta: MetaTable;
  node: NodeTable;
  audit: AuditTable;
}
