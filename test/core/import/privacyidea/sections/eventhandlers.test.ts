// The event handlers of the privacyIDEA fixture after an import: listed with their events, module,
// action, position, ordering, options and conditions as the manifest shows them (an option left
// empty in privacyIDEA is not set); a module authsrv lacks, a comparator other than `equal` and
// privacyIDEA's old single condition are reported as skipped with the reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEventDefinitions } from '../../../../../src/core/event/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import { type ImportedFixture, importedFixture } from '../../../../helpers/privacyidea-import.ts';

// biome-ignore lint/suspicious/noExplicitAny: manifest data
const handlers = piManifest.eventhandlers as any[];

describe.each(testDialects())('import privacyidea: eventhandlers (%s)', (dialect) => {
  let f: ImportedFixture;
  beforeAll(async () => {
    f = await importedFixture(dialect, {
      sql: [
        `INSERT INTO eventhandler (id, name, active, ordering, position, event, handlermodule, condition, action)
         VALUES (3, 'mig-federation', 1, 3, 'pre', 'auth', 'Federation', '', 'forward'),
                (4, 'mig-compare', 1, 4, 'post', 'token_init', 'Logging', '', 'logging'),
                (5, 'mig-legacy', 1, 5, 'post', 'token_init', 'Logging', 'realm=x', 'logging')`,
        `INSERT INTO eventhandlercondition (id, eventhandler_id, "Key", "Value", comparator)
         VALUES (4, 4, 'tokentype', 'hotp', '!equals')`,
      ],
    });
  }, 120_000);
  afterAll(async () => f.close());

  it('lists each handler as the manifest shows it', async () => {
    expect(f.section('eventhandlers').objects).toEqual(handlers.map((h) => h.name));
    const listed = await listEventDefinitions(f.t.rt);
    expect(listed.map((d) => d.name)).toEqual(handlers.map((h) => h.name));
    for (const h of handlers) {
      const d = listed.find((x) => x.name === h.name)!;
      const options = Object.fromEntries(
        Object.entries(h.options as Record<string, string>).filter(([, v]) => v !== ''),
      );
      const conditions = Object.fromEntries(
        Object.entries(h.conditions as Record<string, { value: string }>).map(([k, c]) => [k, c.value]),
      );
      expect(d, h.name).toMatchObject({
        active: h.active,
        event: h.event.split(',').map((e: string) => e.trim()),
        handlermodule: h.handlermodule,
        action: h.action,
        position: h.position,
        ordering: h.ordering,
        options,
        conditions,
        condition: h.condition,
      });
    }
  });

  it('skips a module authsrv lacks, a comparator it does not know and the old single condition, with the reasons', () => {
    const skipped = f.section('eventhandlers').skipped;
    expect(skipped.map((s) => s.object)).toEqual(['mig-federation', 'mig-compare', 'mig-legacy']);
    expect(skipped[0]?.reason).toMatch(/Federation/);
    expect(skipped[1]?.reason).toMatch(/'!equals'/);
    expect(skipped[2]?.reason).toMatch(/old single condition 'realm=x'/);
  });
});
