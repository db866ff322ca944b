/**
 * The Perpetua agent: {@code java -javaagent:perpetua-agent.jar[=options] -cp app.jar Main}.
 * {@link io.perpetua.agent.PerpetuaAgent} is the entry point and
 * {@link io.perpetua.agent.AgentOptions} lists the options. What the agent generates is specified
 * in {@code io.perpetua.runtime}; how is in {@code io.perpetua.agent.transform}; diagnostics in
 * {@code io.perpetua.agent.report}. See the module's README for the rules (what is rewritten,
 * final fields, records, what bypasses the checks, how core reaches the application).
 */
package io.perpetua.agent;
