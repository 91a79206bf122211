import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Makes the updates of `table` whose new row matches `when` (a trigger condition on NEW) fail their
 * first `failures` times with `message`, as a cut connection or a statement timeout would: a sequence
 * is not rolled back with the failed statement. `name` names the sequence, function and trigger.
 */
export const failUpdates = (options: {
  readonly name: string
  readonly table: string
  readonly when: string
  readonly failures: number
  readonly message: string
}) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.unsafe(`
      CREATE SEQUENCE ${options.name}_failures;
      CREATE FUNCTION ${options.name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('${options.name}_failures') <= ${options.failures} THEN
          RAISE EXCEPTION '${options.message}';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER ${options.name} BEFORE UPDATE ON ${options.table} FOR EACH ROW
        WHEN (${options.when}) EXECUTE FUNCTION ${options.name}();`)
  ).pipe(Effect.orDie)
