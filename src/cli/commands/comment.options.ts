// `agentdevel comment`: its command line (the command itself is comment.ts). Light: `--help` reads it without loading the command.
import { command, option, type OptionsOf } from '../declaration.ts';
import type { CommonOptions } from '../io.ts';

export const commentCommandLine = command({
  name: 'comment',
  description: 'post or update one sticky pull request comment with the summary `gate --summary` wrote (GitHub REST API)',
  options: [
    option('--pr <n>', 'the pull request number'),
    option('--summary <file>', 'the summary to post (default agentdevel-report/summary.md)'),
    option('--repo <owner/name>', 'the repository (default $GITHUB_REPOSITORY); the API is $GITHUB_API_URL, the token $GITHUB_TOKEN'),
    option('--key <name>', 'one comment per key: tells apart several gate jobs on one pull request (the Action passes the job id)'),
    option('--timeout <seconds>', 'give up on a request to GitHub whose answer has not arrived in full by then (default 30)'),
  ],
});

export type CommentOptions = CommonOptions & OptionsOf<typeof commentCommandLine>;
