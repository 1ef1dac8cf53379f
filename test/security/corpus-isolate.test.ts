import { runCorpus } from './corpus.js'

runCorpus('isolate')
