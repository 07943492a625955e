"""The built-in rules, one module per family: meta (EV0xx), structure (EV1xx, emitted by the
readers), quality (EV2xx), triggers (EV3xx), generated (EV4xx), agentv (EV5xx), hygiene (HYG1-HYG8)."""
