# curves.svg and curves.png, written by attnzoo; rerun with `gnuplot curves.gp` in this folder.
$train << EOD
3200 0.9457562689878978 0.4925
6400 0.7610998636848487 0.4945054945054945
9600 0.7409844988118857 0.503125
12800 0.7215936314314604 0.484375
16000 0.7203075684420764 0.4934375
19200 0.7094178627423867 0.5157828282828283
22400 0.7047385695576668 0.5184375
25600 0.7080493042431771 0.498125
28800 0.7027206442318856 0.5096875
32000 0.7070937695354224 0.5040625
35200 0.7000062500168993 0.5056818181818182
38400 0.6972524872524482 0.5208333333333334
41600 0.7005708750151097 0.4975
44800 0.698943885602057 0.504375
48000 0.6973220485821366 0.5053125
51200 0.7009663608856499 0.5025
54400 0.7019778190522777 0.46779336734693879
57600 0.6952798061445356 0.50875
60800 0.6978130913500128 0.4895833333333333
64000 0.6965965136885644 0.5071875
EOD
$val << EOD
16000 0.6985816852589969 0.49653312788906009
32000 0.7028562277785068 0.49768875192604009
48000 0.6945283177247033 0.49614791987673348
64000 0.6934398374475757 0.5009630200308166
EOD

set terminal svg size 1100,450 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'curves.svg'
set multiplot layout 1,2 title "linear on retrieval (runs/retrieval-lra-linear)"
set grid
set xlabel 'examples seen'
set ylabel 'loss'
set key top right Right noreverse
plot $train using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'training loss (mean since last log)', $val using 1:2 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation loss'
set ylabel 'accuracy'
set yrange [0.45:0.7]
set key top left Left reverse
plot $train using 1:3 with lines lw 2 lc rgb '#1f77b4' title 'training accuracy (mean since last log)', $val using 1:3 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation accuracy', 0.656 with lines dt 2 lw 1.5 lc rgb '#444444' title "tf-idf cosine (65.6%)", 0.5 with lines dt 3 lw 1.5 lc rgb '#444444' title "chance"
set autoscale y
unset multiplot
unset output
set terminal pngcairo size 1100,450 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'curves.png'
set multiplot layout 1,2 title "linear on retrieval (runs/retrieval-lra-linear)"
set grid
set xlabel 'examples seen'
set ylabel 'loss'
set key top right Right noreverse
plot $train using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'training loss (mean since last log)', $val using 1:2 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation loss'
set ylabel 'accuracy'
set yrange [0.45:0.7]
set key top left Left reverse
plot $train using 1:3 with lines lw 2 lc rgb '#1f77b4' title 'training accuracy (mean since last log)', $val using 1:3 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation accuracy', 0.656 with lines dt 2 lw 1.5 lc rgb '#444444' title "tf-idf cosine (65.6%)", 0.5 with lines dt 3 lw 1.5 lc rgb '#444444' title "chance"
set autoscale y
unset multiplot
unset output
