#!/bin/sh
# `npm test`: the type check beside the tests rather than before them. tsc runs on one core for
# half a minute; run first, it left the second core idle all that time. Niced, it takes what the
# two vitest workers leave (their tests have timeouts, it has none). Fails when either fails;
# arguments go to vitest (`npm test -- test/unit`). Waits for both: nothing is left running.
nice -n 10 tsc -p tsconfig.json &
tsc=$!
vitest run "$@"
tests=$?
wait "$tsc" || exit $?
exit "$tests"
