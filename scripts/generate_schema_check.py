"""Write src/masrl/traces/schema_check.py from the trace schema (run after editing the schema;
tests/traces/test_schema_check.py fails until the two agree)."""

from masrl.traces.schema import SCHEMA_CHECK, schema_check_code

if __name__ == "__main__":
    SCHEMA_CHECK.write_text(schema_check_code(), encoding="utf-8")
    print(f"wrote {SCHEMA_CHECK}")
