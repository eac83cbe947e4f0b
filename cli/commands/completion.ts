import type { Command } from 'commander';
import { Argument } from 'commander';

/**
 * `sluice completion bash|zsh`: a script completing command names and each command's options,
 * made from the commands themselves so it never falls behind. zsh runs the bash one through
 * bashcompinit.
 */
export function registerCompletionCommand(program: Command, print: (text: string) => void): void {
  program
    .command('completion')
    .description('print a shell completion script: eval "$(sluice completion bash)" in ~/.bashrc, or zsh in ~/.zshrc')
    .addArgument(new Argument('<shell>').choices(['bash', 'zsh']))
    .action((shell: 'bash' | 'zsh') => {
      const script = bashScript(program);
      if (shell === 'bash') return print(script);
      print(`autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n${script}`);
    });
}

function words(command: Command): string[] {
  return [...command.commands.map((sub) => sub.name()), ...command.options.map((option) => option.long ?? option.short ?? '')].filter(Boolean);
}

function bashScript(program: Command): string {
  const cases = program.commands
    .map((command) => {
      const nested =
        command.commands.length > 0
          ? `\n        case "\${COMP_WORDS[2]}" in\n${command.commands.map((sub) => `          ${sub.name()}) opts="${words(sub).join(' ')}" ;;`).join('\n')}\n        esac\n        [ "$COMP_CWORD" -eq 2 ] && opts="${words(command).join(' ')}"`
          : '';
      return `      ${command.name()}) opts="${words(command).join(' ')}"${nested} ;;`;
    })
    .join('\n');
  return `# sluice completion (bash)
_sluice() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" opts
  if [ "$COMP_CWORD" -eq 1 ]; then
    opts="${words(program).join(' ')}"
  else
    case "\${COMP_WORDS[1]}" in
${cases}
    esac
  fi
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  # Paths for deploy and for File inputs.
  [ \${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur"))
  return 0
}
complete -F _sluice sluice
`;
}
