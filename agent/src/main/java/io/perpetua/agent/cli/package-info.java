/**
 * The agent jar's command line, for build-time rewriting (as the JDO and ebean enhancers do):
 * {@code java -jar perpetua-agent.jar rewrite [options] <classes-dir> [--classpath <path>]}
 * rewrites the class files of a directory in place, exactly as the {@code -javaagent} would at
 * load time. {@link io.perpetua.agent.cli.Main} is the entry point;
 * {@link io.perpetua.agent.cli.DirectoryRewriter} does the work.
 */
package io.perpetua.agent.cli;
