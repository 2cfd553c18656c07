// Bundles for the hosts that are not Node. Every bundle lowers all code, node_modules included, to
// ES2019: Apps Script V8 does not parse optional chaining from dependencies, private or static class
// fields. The add-in issue adds dist/addin/ (task pane, functions) and the Sheets issue dist/appsscript/.
import path from 'node:path';

const root = import.meta.dirname;

/** SWC lowers TypeScript and modern JavaScript alike. */
const lowerToEs2019 = {
  test: /\.[cm]?[jt]s$/,
  use: {
    loader: 'swc-loader',
    options: { jsc: { target: 'es2019', parser: { syntax: 'typescript' } } },
  },
};

/** @returns {import('webpack').Configuration} */
function portableCore(mode) {
  return {
    name: 'portable-core',
    mode,
    target: ['web', 'es2019'],
    entry: { 'orgindex-core': './src/portable.ts' },
    output: {
      path: path.join(root, 'dist/portable'),
      filename: '[name].js',
      library: { name: 'OrgIndexCore', type: 'var' },
      clean: true,
    },
    resolve: { extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } },
    module: { rules: [lowerToEs2019] },
    devtool: false,
    performance: { hints: false },
  };
}

export default (_env, argv) => [portableCore(argv.mode ?? 'production')];
