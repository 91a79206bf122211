/** Stylesheets are bundled by esbuild into the app's CSS file; importing one yields nothing. */
declare module "*.css"
