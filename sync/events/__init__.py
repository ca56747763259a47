"""Events over NATS: signed envelopes (signing), the connection and its JetStream
stream (connection), the outbox drained to NATS (publisher), and the receiver that
verifies, dedupes, decides and pulls (receiver). What to pull is collective.sync.policy."""
