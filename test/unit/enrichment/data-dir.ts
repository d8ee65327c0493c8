/** The labelled data folder (test/helpers/data.ts). */
export { SHARED_DATA } from '../../helpers/data';
