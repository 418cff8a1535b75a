"""The event-stream fan-out, above mzpay.steps: mzpay.fanout.stream."""
