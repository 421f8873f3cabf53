#!/bin/sh
# One-shot (temporalio/admin-tools): the server does not create the `default` namespace by itself, nor the
# search attributes the agent workflow upserts (the list in src/core/search-attributes.ts).
set -eu
ADDR=${TEMPORAL_ADDRESS:-temporal:7233}
until temporal operator cluster health --address "$ADDR" >/dev/null 2>&1; do echo "waiting for $ADDR"; sleep 2; done
temporal operator namespace describe --namespace default --address "$ADDR" >/dev/null 2>&1 \
  || temporal operator namespace create --namespace default --address "$ADDR"
# A new namespace takes a few seconds to reach every service.
until temporal operator search-attribute create --namespace default --address "$ADDR" \
  --name AgentStatus --type Keyword --name AgentSteps --type Int --name AgentTokens --type Int \
  --name AgentCostUsd --type Double --name AgentStopReason --type Keyword --name AgentGuard --type Keyword \
  --name AgentModel --type Keyword; do
  temporal operator search-attribute list --namespace default --address "$ADDR" 2>/dev/null | grep -q AgentModel && break
  echo "namespace not ready yet"; sleep 2
done
echo "namespace default and the agent's search attributes are ready"
