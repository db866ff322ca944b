/**
 * Diagnostics of the agent: every class offered to the transformer is reported to a
 * {@link io.perpetua.agent.report.TransformListener} as rewritten, skipped (with the reason) or
 * failed (with the exception), so that nothing the transformer does is silent.
 */
package io.perpetua.agent.report;
