// An audit row as stored, every column empty or zero, for tests that write the audit table
// directly (migrations, the batching writer).
export function blankAuditRow(date = '2026-03-01T12:00:00.000Z') {
  return {
    date,
    startdate: date,
    duration: 0,
    action: '',
    success: 1,
    authentication: '',
    serial: '',
    token_type: '',
    container_serial: '',
    container_type: '',
    user: '',
    realm: '',
    resolver: '',
    administrator: '',
    action_detail: '',
    info: '',
    node: 'test-node',
    policies: '',
    client: '',
    user_agent: '',
    user_agent_version: '',
    log_level: '',
    clearance_level: '',
    thread_id: '',
  };
}
