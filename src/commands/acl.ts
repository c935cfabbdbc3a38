/**
 * `nwax acl add|remove|list|check|validate|importtxt`: pywb's `wb-manager acl` on a rules file (the same file
 * serves pywb and nwax), and the decision for a URL with the rule that made it.
 */
import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

const file = Args.string({ description: 'The rules file (.aclj, pywb format); created by add where it does not exist.', required: true });
const target = Args.string({ description: 'A URL (canonicalized to its SURT key) or a SURT prefix such as com,example)/ or *,', required: true });
const user = Flags.string({ char: 'u', description: "The user class the rule is for (a request's nwax.access.user.header); default: everyone." });
const exact = Flags.boolean({ char: 'e', description: 'The rule matches this URL exactly, not as a prefix (key###).', default: false });

export class AclAdd extends NwaxCommand {
  static override summary = 'Add an access rule to a rules file (or change the access of the rule of that key and user).';
  static override examples = [
    '<%= config.bin %> acl add takedowns.aclj http://example.com/private/ exclude',
    '<%= config.bin %> acl add rules.aclj com,example)/ block',
    '<%= config.bin %> acl add rules.aclj com,example)/ allow --user staff',
    '<%= config.bin %> acl add rules.aclj http://example.com/ allow --before 2010 --exact',
  ];
  static override args = {
    file,
    target,
    access: Args.string({ description: 'allow, block, exclude or allow_ignore_embargo', required: true }),
  };
  static override flags = {
    user,
    exact,
    before: Flags.string({ description: 'Only captures before this timestamp (4 to 14 digits; 2010 = before its end, as pywb).' }),
    after: Flags.string({ description: 'Only captures after this timestamp.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AclAdd);
    const { parseRule, ruleKey, formatRule } = await import('../access/aclj.js');
    const { addRule } = await import('../access/rules-file.js');
    const { UsageError } = await import('../util/errors.js');
    const key = ruleKey(args.target, flags.exact);
    const json: Record<string, unknown> = { access: args.access };
    if (args.target.includes('://')) json.url = args.target;
    if (flags.user) json.user = flags.user;
    if (flags.before) json.before = flags.before;
    if (flags.after) json.after = flags.after;
    let rule;
    try {
      rule = parseRule(`${key} - ${JSON.stringify(json)}`);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const old = addRule(args.file, rule);
    this.sayLine(`${old ? `changed ${formatRule(old)} to` : 'added'} ${formatRule(rule)}`);
  }
}

export class AclRemove extends NwaxCommand {
  static override summary = 'Remove the access rule of a URL or SURT prefix (and user) from a rules file.';
  static override examples = ['<%= config.bin %> acl remove takedowns.aclj http://example.com/private/'];
  static override args = { file, target };
  static override flags = { user, exact };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AclRemove);
    const { ruleKey, formatRule } = await import('../access/aclj.js');
    const { removeRule } = await import('../access/rules-file.js');
    const { NwaxError } = await import('../util/errors.js');
    const key = ruleKey(args.target, flags.exact);
    const old = removeRule(args.file, key, flags.user);
    if (!old) throw new NwaxError('NWAX_INPUT', `${args.file}: no rule for ${key}${flags.user ? ` and user ${flags.user}` : ''}`);
    this.sayLine(`removed ${formatRule(old)}`);
  }
}

export class AclList extends NwaxCommand {
  static override summary = 'List the rules of a rules file, in the order pywb keeps them.';
  static override examples = ['<%= config.bin %> acl list takedowns.aclj'];
  static override args = { file };

  async run(): Promise<void> {
    const { args } = await this.parse(AclList);
    const { formatRule, sortLines } = await import('../access/aclj.js');
    const { readRulesFile } = await import('../access/rules-file.js');
    const lines = sortLines(readRulesFile(args.file).map(formatRule));
    process.stdout.write(lines.length ? `${lines.join('\n')}\n` : '');
  }
}

export class AclCheck extends NwaxCommand {
  static override summary = 'Say what the rules decide for a URL (allow, block or exclude) and which rule decided.';
  static override description = `The rules are those of FILE (comma-separated files), with nwax.access.default and nwax.access.embargo; \
exit 0 for allow, 1 for block or exclude.`;
  static override examples = [
    '<%= config.bin %> acl check takedowns.aclj http://www.example.com/private/a.html',
    '<%= config.bin %> acl check rules.aclj https://example.com/ --user staff --timestamp 20240101000000',
  ];
  static override args = { file, url: Args.string({ description: 'The URL of a capture.', required: true }) };
  static override flags = {
    user: Flags.string({ char: 'u', description: 'The user class asking (default: the public).' }),
    timestamp: Flags.string({ description: 'The capture time (14 digits; default: now).' }),
    json: Flags.boolean({ description: 'Print the decision as JSON.', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AclCheck);
    const conf = await this.configurationFor(flags.define);
    const { AccessPolicy, accessSettings } = await import('../access/policy.js');
    const { formatRule, sourceOf } = await import('../access/aclj.js');
    const { timestampOf } = await import('../access/dates.js');
    const policy = new AccessPolicy({ ...accessSettings(conf), files: args.file.split(',').map((f) => f.trim()) }, undefined, { keepUrls: true });
    const ts = flags.timestamp ?? timestampOf(new Date());
    const d = policy.decide(args.url, ts, flags.user);
    const key = policy.rules.keyOf(args.url);
    if (flags.json) {
      const rule = d.rule ? { line: formatRule(d.rule), source: sourceOf(d.rule) } : null;
      process.stdout.write(
        `${JSON.stringify({ url: args.url, key, timestamp: ts, user: flags.user ?? null, access: d.access, rule, embargoed: d.embargoed === true })}\n`,
      );
    } else {
      const why = d.embargoed
        ? 'the embargo'
        : d.rule
          ? `${formatRule(d.rule)} (${sourceOf(d.rule)})`
          : `the default (nwax.access.default=${policy.settings.defaultAccess})`;
      process.stdout.write(`${args.url} (${key}) at ${ts}${flags.user ? ` for ${flags.user}` : ''}: ${d.access}, by ${why}\n`);
    }
    if (d.access !== 'allow') process.exitCode = 1;
  }
}

export class AclValidate extends NwaxCommand {
  static override summary = 'Check rules files: lines that do not parse, files with no rules, keys that can never match, rules that never decide.';
  static override description = `Prints each finding as FILE:LINE: what is wrong, and a summary; exit 0 when there is none, 1 otherwise. \
A key never matches where it is a URL, has uppercase, or is not a SURT key; a rule never decides where another of the same key \
and user class comes first in pywb's order.`;
  static override examples = ['<%= config.bin %> acl validate takedowns.aclj', '<%= config.bin %> acl validate /data/acl/*.aclj'];
  static override strict = false;
  static override args = { file };

  async run(): Promise<void> {
    const { argv } = await this.parse(AclValidate);
    const { readRules } = await import('../access/policy.js');
    const { validateRules } = await import('../access/validate-rules.js');
    const lines: string[] = [];
    let rules = 0;
    for (const f of argv as string[]) {
      // As the service reads it (its errors are the service's), then what it would accept silently.
      const read = readRules([f], true);
      rules += read.rules.length;
      lines.push(...read.errors);
      for (const x of validateRules(read.rules)) lines.push(`${x.where}: ${x.message}`);
    }
    if (lines.length) process.stdout.write(`${lines.join('\n')}\n`);
    this.sayLine(`${argv.length} file${argv.length === 1 ? '' : 's'}, ${rules} rules, ${lines.length} finding${lines.length === 1 ? '' : 's'}`);
    if (lines.length) process.exitCode = 1;
  }
}

export class AclImportTxt extends NwaxCommand {
  static override summary = "Add a rule for each URL or SURT prefix of an exclusion list (OpenWayback's, pywb's `acl importtxt`), one a line.";
  static override description = `Each line of LIST (a URL, a SURT prefix, or OpenWayback's http://(com,example,)/ form; blank lines and # comments \
skipped) becomes a rule of ACCESS (default exclude), replacing the rule of its key and user; FILE is written once, in pywb's order.`;
  static override examples = [
    '<%= config.bin %> acl importtxt takedowns.aclj exclusions.txt',
    '<%= config.bin %> acl importtxt rules.aclj list.txt block --user public',
  ];
  static override args = {
    file,
    list: Args.string({ description: 'The exclusion list: a URL or SURT prefix a line.', required: true }),
    access: Args.string({ description: 'allow, block, exclude or allow_ignore_embargo', default: 'exclude' }),
  };
  static override flags = { user };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AclImportTxt);
    const { readFileSync } = await import('node:fs');
    const { exclusionKeys, parseRule } = await import('../access/aclj.js');
    const { addRules } = await import('../access/rules-file.js');
    const { unmatchableKey } = await import('../access/validate-rules.js');
    const { InputError, NwaxError, UsageError, describeFsError } = await import('../util/errors.js');
    let text: string;
    try {
      text = readFileSync(args.list, 'utf8');
    } catch (err) {
      throw new InputError(describeFsError(args.list, err as NodeJS.ErrnoException));
    }
    const rules = [];
    for (const [i, line] of text.split(/\r?\n/).entries()) {
      let keys: string[];
      try {
        keys = exclusionKeys(line);
      } catch (err) {
        throw new NwaxError('NWAX_FORMAT', `${args.list}: line ${i + 1}: not a URL or SURT prefix (${(err as Error).message}); nothing imported`);
      }
      for (const key of keys) {
        const never = unmatchableKey(key);
        if (never) throw new NwaxError('NWAX_FORMAT', `${args.list}: line ${i + 1}: ${key}: ${never}; nothing imported`);
        const json: Record<string, unknown> = { access: args.access };
        if (line.includes('://') && !line.includes('://(')) json.url = line.trim();
        if (flags.user) json.user = flags.user;
        try {
          rules.push(parseRule(`${key} - ${JSON.stringify(json)}`));
        } catch (err) {
          throw new UsageError((err as Error).message);
        }
      }
    }
    if (rules.length === 0) throw new NwaxError('NWAX_INPUT', `${args.list}: no URL or SURT prefix in it; ${args.file} left as it was`);
    const { added, replaced } = addRules(args.file, rules);
    this.sayLine(`${added} rules added and ${replaced} replaced in ${args.file} from ${args.list}`);
  }
}
